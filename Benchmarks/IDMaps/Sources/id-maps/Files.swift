import Glibc

/// A file written whole: to a temporary name, synced, then renamed into place.
final class Output {
    private let path: String
    private let fd: Int32

    init(_ path: String) throws {
        self.path = path
        fd = open(path + ".new", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw MapError(description: "creating \(path).new") }
    }

    func write(_ bytes: [UInt8]) throws {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, bytes.count - done) }
            guard n > 0 else { throw MapError(description: "writing \(path).new") }
            done += n
        }
    }

    func finish() throws {
        guard fsync(fd) == 0, close(fd) == 0, rename(path + ".new", path) == 0 else {
            throw MapError(description: "finishing \(path)")
        }
    }
}

func syncDirectory(_ path: String) throws {
    let fd = open(path, O_RDONLY | O_DIRECTORY)
    defer { close(fd) }
    guard fd >= 0, fsync(fd) == 0 else { throw MapError(description: "syncing \(path)") }
}

func fileSize(_ path: String) -> Int64 {
    var info = stat()
    return stat(path, &info) == 0 ? Int64(info.st_size) : 0
}

func directorySize(_ path: String) -> Int64 {
    guard let dir = opendir(path) else { return 0 }
    defer { closedir(dir) }
    var total: Int64 = 0
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name != "." && name != ".." { total += fileSize(path + "/" + name) }
    }
    return total
}

/// The process's resident anonymous memory, in MB: what it holds itself, not the page cache it maps.
func anonymousMB() -> Int {
    guard let file = fopen("/proc/self/status", "r") else { return -1 }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, 256, file) != nil {
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if text.hasPrefix("RssAnon:") { return (Int(text.split(separator: " ")[1]) ?? 0) / 1024 }
    }
    return -1
}
