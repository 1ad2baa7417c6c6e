// swift-tools-version: 6.2.3
// The oldest toolchain that builds the package: `@nonexhaustive` (SE-0487) first compiles without an
// experimental flag in Swift 6.2.3 (Xcode 26.2). `Scripts/tools-version.py` fails CI when a source
// uses a feature newer than this line.
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]
/// The libraries also say which imports their public API shows (`public import`); every other
/// import is internal.
let library = strict + [.enableUpcomingFeature("InternalImportsByDefault")]

let package = Package(
    name: "SessionKit",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "SessionKitCore", targets: ["SessionKitCore"]),
        .library(name: "SessionKit", targets: ["SessionKit"]),
        .library(name: "SessionKitJOSE", targets: ["SessionKitJOSE"]),
        .library(name: "SessionKitHandoffs", targets: ["SessionKitHandoffs"]),
        .library(name: "SessionKitTesting", targets: ["SessionKitTesting"]),
        .library(name: "SessionKitSecretService", targets: ["SessionKitSecretService"]),
        .executable(name: "walkthrough", targets: ["Walkthrough"]),
        .executable(name: "idtoken", targets: ["idtoken"]),
    ],
    targets: [
        // Crypto backend on Linux: OpenSSL 3 through a tiny C shim.
        .systemLibrary(
            name: "CSessionKitOpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        // Lock annotations the thread sanitizer needs on Linux; the desktop keyring's libsecret,
        // loaded at run time (dlopen), so nothing links against it or needs its headers.
        .target(name: "CSessionKitSupport"),
        // JOSE and ID-token validation: strict parsing, RS256, PKCE.
        .target(
            name: "SessionKitJOSE",
            dependencies: [
                .target(name: "CSessionKitOpenSSL", condition: .when(platforms: [.linux]))
            ],
            swiftSettings: library
        ),
        // What the session and the handoffs share: `Secret`, the store errors, the locks, the
        // store file primitives and the credential-import token ledgers.
        .target(
            name: "SessionKitCore",
            dependencies: ["SessionKitJOSE", "CSessionKitSupport"],
            swiftSettings: library
        ),
        // The session: state machine, actors, provider client, seams.
        .target(
            name: "SessionKit",
            dependencies: ["SessionKitCore", "SessionKitJOSE", "CSessionKitSupport"],
            swiftSettings: library
        ),
        // The other app-to-app handoffs: 1Password access requests, credential-exchange import.
        .target(
            name: "SessionKitHandoffs",
            dependencies: ["SessionKitCore", "SessionKitJOSE"],
            swiftSettings: library
        ),
        // Credential stores chosen by the app: the Secret Service, the platform default with its choice on record.
        .target(
            name: "SessionKitSecretService",
            dependencies: ["SessionKit", "SessionKitCore"],
            swiftSettings: library
        ),
        // The test kit apps use for their own tests.
        .target(
            name: "SessionKitTesting",
            dependencies: ["SessionKit", "SessionKitCore", "SessionKitJOSE", "SessionKitHandoffs"],
            swiftSettings: library
        ),
        .executableTarget(
            name: "Walkthrough",
            dependencies: ["SessionKit", "SessionKitHandoffs", "SessionKitJOSE", "SessionKitTesting"],
            path: "Examples/Walkthrough",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "idtoken",
            dependencies: ["SessionKitJOSE"],
            swiftSettings: strict
        ),
        .target(
            name: "BenchmarkSupport",
            path: "Benchmarks/Support",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "SessionBenchmarks",
            dependencies: [
                "BenchmarkSupport", "SessionKit", "SessionKitTesting", "SessionKitJOSE",
                .target(name: "CSessionKitOpenSSL", condition: .when(platforms: [.linux])),
            ],
            path: "Benchmarks/SessionBenchmarks",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "TransportBenchmarks",
            dependencies: ["BenchmarkSupport", "SessionKit", "SessionKitTesting"],
            path: "Benchmarks/TransportBenchmarks",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "JOSEBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                "SessionKitJOSE",
                .target(name: "CSessionKitOpenSSL", condition: .when(platforms: [.linux])),
            ],
            path: "Benchmarks/JOSEBenchmarks",
            swiftSettings: strict
        ),
        .testTarget(
            name: "SessionKitJOSETests",
            dependencies: ["SessionKitJOSE", "idtoken"],
            swiftSettings: strict
        ),
        // Child process for the credential stores' cross-process and crash tests.
        .executableTarget(
            name: "SessionKitStoreTool",
            dependencies: ["SessionKit"],
            path: "Tests/StoreTool",
            swiftSettings: strict
        ),
        // What every test that starts a child process needs: the child's standard error in a file,
        // the runtime's crash backtrace turned on, how the child ended.
        .target(
            name: "ChildProcessSupport",
            path: "Tests/ChildProcessSupport",
            swiftSettings: strict
        ),
        // Child process for the session's crash and cross-process refresh tests.
        .executableTarget(
            name: "SessionKitCrashTool",
            dependencies: ["SessionKit"],
            path: "Tests/CrashTool",
            swiftSettings: strict
        ),
        .testTarget(
            name: "SessionKitTests",
            dependencies: [
                "SessionKit", "SessionKitTesting", "SessionKitJOSE", "SessionKitStoreTool", "SessionKitCrashTool", "ChildProcessSupport",
            ],
            swiftSettings: strict
        ),
        // The model checker: every input sequence to a depth, against the invariants
        // (`Scripts/model-check.sh` builds the runner in release mode with testing enabled).
        .target(
            name: "SessionKitModelCheck",
            dependencies: ["SessionKit", "SessionKitCore", "SessionKitJOSE", "SessionKitHandoffs"],
            path: "Tests/ModelCheck/Explorer",
            // Optimised even in a debug build: the invariants and canonical forms are most of an
            // exploration's time, so the CI run explores several times more states per second
            // on the debug build `swift test` already made.
            swiftSettings: strict + [.unsafeFlags(["-O"], .when(configuration: .debug))]
        ),
        .executableTarget(
            name: "model-check",
            dependencies: ["SessionKitModelCheck"],
            path: "Tests/ModelCheck/Runner",
            swiftSettings: strict
        ),
        .testTarget(
            name: "SessionKitModelCheckTests",
            dependencies: ["SessionKitModelCheck"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SessionKitHandoffsTests",
            dependencies: ["SessionKitHandoffs", "SessionKitTesting", "SessionKit", "SessionKitJOSE"],
            swiftSettings: strict
        ),
        // Against a real gnome-keyring-daemon (Scripts/test.sh starts one); skipped when none answers.
        .testTarget(
            name: "SessionKitSecretServiceTests",
            dependencies: ["SessionKitSecretService", "SessionKit", "ChildProcessSupport"],
            swiftSettings: strict
        ),
        // Every Swift snippet of the README and the DocC articles, extracted at build time and
        // compiled (the `run` ones also run); the surroundings they assume are in Givens.swift.
        .executableTarget(
            name: "SnippetExtractor",
            path: "Scripts/Snippets/Extractor",
            swiftSettings: strict
        ),
        .plugin(
            name: "DocumentationSnippets",
            capability: .buildTool(),
            dependencies: ["SnippetExtractor"],
            path: "Scripts/Snippets/Plugin"
        ),
        .testTarget(
            name: "SnippetTests",
            dependencies: ["SessionKit", "SessionKitTesting", "SessionKitHandoffs", "SessionKitSecretService", "SessionKitJOSE"],
            swiftSettings: strict,
            plugins: ["DocumentationSnippets"]
        ),
        // Real HTTP against local OpenID providers (Scripts/providers); skipped unless they run.
        .testTarget(
            name: "IntegrationTests",
            dependencies: ["SessionKit", "SessionKitTesting", "SessionKitCrashTool", "Walkthrough", "idtoken", "ChildProcessSupport"],
            swiftSettings: strict
        ),
    ]
)
