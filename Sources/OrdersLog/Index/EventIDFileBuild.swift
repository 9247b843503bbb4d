import OrdersFiles
import OrdersFormat
import Synchronization

/// The event-id file built on a thread of its own from the ids a writer has
/// read, while the writer answers from those ids in memory and goes on
/// appending: a server's first start on a log without a file is then as
/// quick as a start that builds nothing. The writer takes the file at its
/// next look once it is built (``take()``); its ids of the batches after
/// the file's point are those it appended, which it holds anyway.
final class EventIDFileBuild: Sendable {
    private let built = Mutex<TransferBox<EventIDFile>?>(nil)

    /// Starts building the file of `log` from `index`, every event id of
    /// `batches`. Both threads only read `index` until the file is taken.
    init(log: String, index: EventIDIndex, batches: ArraySlice<LogLayout.Batch>) {
        let job = TransferBox((index, Array(batches)))
        startDetachedThread { [self] in
            // Derived: a file that cannot be built is not there, and the ids in memory go on answering.
            guard let file = try? EventIDFile.build(log: log, from: job.value.0, covering: job.value.1[...]) else { return }
            self.built.withLock { $0 = TransferBox(file) }
        }
    }

    /// The file, once built; nil before, and after it was taken.
    func take() -> EventIDFile? { built.withLock { $0.take()?.value } }
}
