import Dispatch
package import Foundation
import SessionKitCore

extension LeaseKeeper {
    /// The lease of a store kept outside the file system (a keyring): a `flock` on
    /// `directory/lockName`, shared in this process by every store that names the same `key`.
    ///
    /// The directory is created (mode 0700) on first use, on a queue of its own, since `mkdir` and
    /// `fsync` may block.
    package static func lockFile(in directory: URL, named lockName: String, key: String) -> LeaseKeeper {
        let path = directory.standardizedFileURL.path(percentEncoded: false)
        return shared(forKey: key + "@" + path) {
            let fileSystem = POSIXFileSystem()
            let files = StoreDirectory(path: path, fileSystem: fileSystem, managedNames: [])
            let lock = FileLock(path: files.filePath(lockName), fileSystem: fileSystem)
            let queue = DispatchQueue(label: "SessionKit.LeaseKeeper.lockFile")
            return LeaseKeeper(crossProcess: {
                let prepared = await withCheckedContinuation {
                    (continuation: CheckedContinuation<Result<Void, CredentialStoreError>, Never>) in
                    queue.async { continuation.resume(returning: Result { () throws(CredentialStoreError) in try files.prepare() }) }
                }
                try prepared.get()
                let descriptor = try await lock.acquire()
                return { lock.release(descriptor) }
            })
        }
    }
}
