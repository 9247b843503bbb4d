@testable import OrdersLog
import Testing

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
        var state: UInt64 = 3
        let bytes = (0..<100).map { _ -> UInt8 in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        bytes.withUnsafeBytes { all in
            for start in 0..<8 {
                for length in 0...80 {
                    let part = UnsafeRawBufferPointer(rebasing: all[start..<start + length])
                    #expect(CRC32C.checksum(part) == CRC32C.softwareChecksum(part), "start \(start), length \(length)")
                }
            }
        }
    }
}
