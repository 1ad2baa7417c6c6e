#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Standard output, one line per completed step, unbuffered.
///
/// Each line goes out in a single `write(2)`: lines from concurrent tasks never interleave (a pipe
/// writes up to `PIPE_BUF` bytes atomically), and a line the parent has read describes a step that
/// really finished before the process could be killed.
enum ToolOutput {
    static func emit(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            // The reader is gone: nobody is left to tell.
            if count <= 0 { exit(3) }
            offset += count
        }
    }
}
