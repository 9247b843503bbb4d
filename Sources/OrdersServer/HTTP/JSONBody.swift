import Foundation

/// A request's JSON body as values, for the routes that take an object of a
/// few members (a subscription's definition, its acks): each member is
/// checked and refused by name, as `{"error", "field"}` with a 400.
enum JSONBody: Decodable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONBody])
    case object([String: JSONBody])

    init(from decoder: any Decoder) throws {
        let value = try decoder.singleValueContainer()
        if value.decodeNil() {
            self = .null
        } else if let bool = try? value.decode(Bool.self) {
            self = .bool(bool)
        } else if let integer = try? value.decode(Int64.self) {
            self = .integer(integer)
        } else if let number = try? value.decode(Double.self) {
            self = .number(number)
        } else if let string = try? value.decode(String.self) {
            self = .string(string)
        } else if let array = try? value.decode([JSONBody].self) {
            self = .array(array)
        } else {
            self = .object(try value.decode([String: JSONBody].self))
        }
    }

    /// The members of the object `bytes` holds (`{}` for an empty body), none but those `allowed`.
    static func members(of bytes: [UInt8], allowed: Set<String>) throws -> [String: JSONBody] {
        guard !bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) else { return [:] }
        let value: JSONBody
        do {
            value = try JSONDecoder().decode(JSONBody.self, from: Data(bytes))
        } catch {
            throw JSONError(field: nil, "the body is not JSON")
        }
        guard case .object(let members) = value else { throw JSONError(field: nil, "the body must be a JSON object") }
        if let unknown = members.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw JSONError(field: unknown, "the body has a member \(unknown.debugDescription), which this route does not take")
        }
        return members
    }

    /// The seqs of the member `seqs`: an array of integers, at most `most`.
    static func seqs(_ members: [String: JSONBody], most: Int) throws -> [Int64]? {
        guard let value = members["seqs"] else { return nil }
        guard case .array(let items) = value, items.count <= most else {
            throw JSONError(field: "seqs", "seqs must be an array of at most \(most) seqs")
        }
        return try items.map { item in
            guard case .integer(let seq) = item, seq >= 1 else { throw JSONError(field: "seqs", "seqs must hold seqs, integers from 1") }
            return seq
        }
    }
}
