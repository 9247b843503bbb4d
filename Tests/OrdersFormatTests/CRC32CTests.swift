import CCRC32C
import Testing

@testable import OrdersFormat

/// The CRC-32C that checks every header and frame, by instruction and by table.
@Suite("CRC-32C")
struct CRC32CTests {
    @Test func theCheckValueOfTheStandard() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
        #expect(Array("123456789".utf8).withUnsafeBytes { CRC32C.softwareChecksum($0) } == 0xE306_9283)
        #expect(CRC32C.checksum([]) == 0)
    }

    /// Every length up to 80 at every start within a word, so that both ends
    /// of the word-at-a-time loop are crossed.
    @Test func instructionAndTablesAgree() {
        let bytes = Self.randomBytes(100, seed: 3)
        bytes.withUnsafeBytes { all in
            for start in 0..<8 {
                for length in 0...80 {
                    let part = UnsafeRawBufferPointer(rebasing: all[start..<start + length])
                    #expect(CRC32C.checksum(part) == CRC32C.softwareChecksum(part), "start \(start), length \(length)")
                }
            }
        }
    }

    /// Buffers long enough for the instruction to read three lanes at once
    /// (12 KiB to a group), around the lengths where a group ends, from
    /// starts within a word, and with a starting state of its own.
    @Test func threeLanesAgreeWithTheTables() {
        let bytes = Self.randomBytes(50_000, seed: 5)
        bytes.withUnsafeBytes { all in
            for start in 0..<4 {
                for length in [12_287, 12_288, 12_289, 12_296, 24_575, 24_576, 24_583, 36_864 + 5, 49_000] {
                    let part = UnsafeRawBufferPointer(rebasing: all[start..<start + length])
                    #expect(CRC32C.checksum(part) == CRC32C.softwareChecksum(part), "start \(start), length \(length)")
                }
            }
            // A checksum taken in two calls, the first ending inside a group, equals one taken at once.
            let whole = UnsafeRawBufferPointer(rebasing: all[0..<40_000])
            let head = UnsafeRawBufferPointer(rebasing: all[0..<13_000]), tail = UnsafeRawBufferPointer(rebasing: all[13_000..<40_000])
            if CRC32C.hasHardware {
                let twoCalls = ~crc32c_hardware_update(
                    crc32c_hardware_update(0xFFFF_FFFF, head.baseAddress!, head.count), tail.baseAddress!, tail.count)
                #expect(twoCalls == CRC32C.softwareChecksum(whole))
            }
        }
    }

    /// `count` bytes from a linear congruential generator started at `seed`.
    static func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
    }
}
