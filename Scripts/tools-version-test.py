#!/usr/bin/env python3
"""Tests of Scripts/tools-version.py on small packages written to a temporary directory.

    python3 Scripts/tools-version-test.py
"""
import contextlib
import importlib.util
import io
import pathlib
import tempfile
import unittest

HERE = pathlib.Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("tools_version", HERE / "tools-version.py")
tools_version = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tools_version)


class Fixture:
    """A package on disk: its manifest's first line and its Swift files."""

    def __init__(self, tools_version_line: str, files: dict[str, str]):
        self.directory = tempfile.TemporaryDirectory()
        self.root = pathlib.Path(self.directory.name)
        (self.root / "Package.swift").write_text(tools_version_line + "\nimport PackageDescription\n")
        for name, text in files.items():
            path = self.root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)

    def check(self) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = tools_version.check(self.root)
        self.directory.cleanup()
        return status, out.getvalue(), err.getvalue()


NONEXHAUSTIVE = "/// A kind.\n@nonexhaustive\npublic enum Kind {\n    case a\n}\n"
IMMEDIATE = "func start() {\n    Task.immediate { await work() }\n}\n"


class ToolsVersionCheckTests(unittest.TestCase):
    def test_a_feature_newer_than_the_declared_version_fails_with_its_place(self):
        status, _, err = Fixture("// swift-tools-version: 6.0", {"Sources/A/Kind.swift": NONEXHAUSTIVE}).check()
        self.assertEqual(status, 1)
        self.assertIn("Sources/A/Kind.swift:2: @nonexhaustive enums (SE-0487) needs Swift 6.2.3", err)
        self.assertIn("declares swift-tools-version 6.0", err)

    def test_the_patch_release_counts(self):
        # @nonexhaustive needs 6.2.3; 6.2.0 to 6.2.2 only had it behind an experimental flag.
        status, _, err = Fixture("// swift-tools-version: 6.2", {"Sources/A/Kind.swift": NONEXHAUSTIVE}).check()
        self.assertEqual(status, 1)
        self.assertIn("needs Swift 6.2.3", err)

    def test_the_version_that_shipped_the_feature_passes(self):
        status, out, err = Fixture(
            "// swift-tools-version: 6.2.3", {"Sources/A/Kind.swift": NONEXHAUSTIVE, "Sources/A/Start.swift": IMMEDIATE}
        ).check()
        self.assertEqual((status, err), (0, ""))
        self.assertIn("the newest used is @nonexhaustive enums (SE-0487, Swift 6.2.3)", out)

    def test_every_target_kind_is_read_not_only_sources(self):
        for place in ["Tests/ATests/T.swift", "Benchmarks/B/main.swift", "Examples/E/main.swift"]:
            status, _, err = Fixture("// swift-tools-version:6.1", {place: IMMEDIATE}).check()
            self.assertEqual(status, 1, place)
            self.assertIn(f"{place}:2: immediate tasks", err)

    def test_build_directories_are_not_read(self):
        status, _, _ = Fixture("// swift-tools-version: 6.0", {".build/checkouts/x/Kind.swift": NONEXHAUSTIVE}).check()
        self.assertEqual(status, 0)

    def test_mentions_in_comments_and_strings_do_not_count(self):
        text = (
            "// Every enum here is @nonexhaustive; Task.immediate is not used.\n"
            "/* @concurrent /* nested */ weak let */\n"
            'let a = "@nonexhaustive Task.immediate"\n'
            'let b = #"a "quoted" @concurrent"#\n'
            'let c = """\n    addImmediateTask\n    """\n'
            'let d = "\\(f("@nonexhaustive"))"\n'
            'let url = "https://example.com"; call(a, "b")\n'
        )
        status, _, err = Fixture("// swift-tools-version: 6.0", {"Sources/A/Text.swift": text}).check()
        self.assertEqual((status, err), (0, ""))

    def test_code_inside_an_interpolation_counts(self):
        text = 'let a = "\\(await Task.immediate { 1 }.value)"\n'
        status, _, err = Fixture("// swift-tools-version: 6.1", {"Sources/A/Text.swift": text}).check()
        self.assertEqual(status, 1)
        self.assertIn("immediate tasks", err)

    def test_a_manifest_without_a_tools_version_is_an_error(self):
        status, _, err = Fixture("import PackageDescription", {}).check()
        self.assertEqual(status, 2)
        self.assertIn("does not declare a swift-tools-version", err)

    def test_every_pattern_finds_its_example_and_nothing_in_plain_code(self):
        plain = "struct S: Equatable {\n    let components = d.components.attoseconds\n    func f(a: Int, b: [Int]) {}\n}\n"
        self.assertEqual(tools_version.uses(plain), [])
        for feature in tools_version.FEATURES:
            found = [used for _, used in tools_version.uses(feature.example + "\n")]
            self.assertIn(feature, found, f"{feature.name}: {feature.example!r}")

    def test_this_package_passes(self):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = tools_version.check(tools_version.ROOT)
        self.assertEqual(status, 0, err.getvalue())


if __name__ == "__main__":
    unittest.main()
