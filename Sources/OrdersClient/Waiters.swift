/// The tasks an actor keeps waiting until something it holds changes: each
/// with what it waits for and its continuation, resumed once, when that
/// holds or when its task is cancelled (by its number).
struct Waiters<Awaited> {
    private var waiting: [(id: Int, awaited: Awaited, reply: CheckedContinuation<Void, Never>)] = []
    private var last = 0

    /// A number for the next wait, for ``cancel(_:)``.
    mutating func nextID() -> Int {
        last += 1
        return last
    }

    mutating func add(_ id: Int, awaiting awaited: Awaited, _ reply: CheckedContinuation<Void, Never>) {
        waiting.append((id, awaited, reply))
    }

    /// Resumes every wait for which `holds` is true.
    mutating func resume(where holds: (Awaited) -> Bool) {
        waiting.removeAll { waiting in
            guard holds(waiting.awaited) else { return false }
            waiting.reply.resume()
            return true
        }
    }

    /// Resumes wait `id`, whose task was cancelled, if it still waits.
    mutating func cancel(_ id: Int) {
        waiting.removeAll { waiting in
            guard waiting.id == id else { return false }
            waiting.reply.resume()
            return true
        }
    }
}
