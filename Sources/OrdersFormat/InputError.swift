import OrdersCore

/// Input that `orders` cannot read: malformed NDJSON, or a log that is
/// corrupt or not a log. It says where (file, then line or byte offset) and,
/// for an event, which field.
public struct InputError: OrdersError, Hashable, Sendable, CustomStringConvertible {
    public enum Location: Hashable, Sendable {
        /// A 1-based line of an NDJSON file.
        case line(Int)
        /// A 0-based byte offset in a file.
        case offset(Int64)
    }

    public var file: String
    public var location: Location?
    /// The event field at fault, e.g. `qty`.
    public var field: String?
    public var message: String
    /// ``ErrorCode/malformedInput``, ``ErrorCode/corruptLog`` or ``ErrorCode/idConflict``.
    public var code: ErrorCode
    /// For an id conflict, the seq of the event that holds the id.
    public var heldSeq: Seq?

    /// The line, if it is one of NDJSON.
    public var line: Int? {
        if case .line(let line) = location { line } else { nil }
    }

    public init(file: String, location: Location? = nil, field: String? = nil, message: String, code: ErrorCode = .malformedInput) {
        self.code = code
        self.file = file
        self.location = location
        self.field = field
        self.message = message
    }

    /// `kiosk.ndjson:3: field "qty": must be an integer ≥ 1, got 0`, or
    /// `store.log: byte 4096: batch header checksum does not match`.
    public var description: String {
        var text = file
        switch location {
        case .line(let line): text += ":\(line)"
        case .offset(let offset): text += ": byte \(offset)"
        case nil: break
        }
        if let field { text += ": field \"\(field)\"" }
        return text + ": " + message
    }
}

extension InputError {
    /// The refusal of a FILE whose content, with events without an id, was
    /// imported into `log` before (`seqs`, the seqs its events took), or is
    /// given twice in one import (`earlier`, the name it was given by first).
    package static func importedAgain(_ file: String, into log: String, seqs: Range<Seq>, earlier: String?) -> InputError {
        let what = seqs.isEmpty ? "no new events" : seqs.seqDescription
        guard let earlier else {
            return InputError(
                file: file,
                message:
                    "this content was imported into \(log) before, as \(what), and its events without an id would be appended again; --again imports it anyway"
            )
        }
        let given = earlier == file ? "is given twice" : "has the content of \(earlier), given before it"
        return InputError(
            file: file,
            message:
                "\(given) in this import (\(what) of \(log)), and its events without an id would be appended twice; --again imports it anyway"
        )
    }
}

extension InputError {
    /// An arriving event whose `id` the log holds (`seq`) for another event: what
    /// every writer says of it, naming the file, the line if it has one, the field
    /// and the seq (EVENTS.md: a conflict).
    public static func idConflict(_ id: [UInt8], file: String, line: Int?, seq: Seq) -> InputError {
        var quoted: [UInt8] = []
        JSONText.appendString(id, to: &quoted)
        var error = InputError(
            file: file, location: line.flatMap { $0 > 0 ? .line($0) : nil }, field: "id",
            message: "\(String(decoding: quoted, as: UTF8.self)) is the id of another event, at seq \(seq)", code: .idConflict)
        error.heldSeq = seq
        return error
    }
}
