import Glibc

/// Loads a log's batches on worker threads, a few ahead of the reader, and
/// hands them over in log order: decompression and decoding, which need
/// nothing from other batches, run in parallel while the reader folds.
///
/// Hand-written on pthreads rather than Dispatch or Swift concurrency: an
/// ordered hand-off with back-pressure is a mutex and a condition variable,
/// and the fold must stay on the caller's thread.
final class ParallelLoader: @unchecked Sendable {  // Every mutable field is guarded by `mutex`.
    private let batches: [LogLayout.Batch]
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// How many batches may be loaded ahead of the one the reader takes next.
    private let window: Int
    private var nextToLoad = 0
    private var nextToTake = 0
    private var ready: [Int: Result<LoadedBatch, any Error>] = [:]
    /// Batches the reader is done with, whose buffers the workers reuse.
    private var spare: [LoadedBatch] = []
    private var stopping = false
    private var threads: [pthread_t] = []

    /// Starts `workers` threads, each with a loader from `makeLoader`.
    init(batches: [LogLayout.Batch], workers: Int, makeLoader: @escaping @Sendable () throws -> BatchLoader) {
        self.batches = batches
        window = 2 * workers + 2
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(changed, nil)
        for _ in 0..<workers {
            threads.append(startThread { [self] in
                do {
                    var loader = try makeLoader()
                    work(&loader)
                } catch {
                    fail(error)
                }
            })
        }
    }

    deinit {
        locked { stopping = true }
        pthread_cond_broadcast(changed)
        for thread in threads { pthread_join(thread, nil) }
        pthread_cond_destroy(changed)
        pthread_mutex_destroy(mutex)
        changed.deallocate()
        mutex.deallocate()
    }

    /// The next batch in log order, waiting for a worker to load it.
    func take() -> Result<LoadedBatch, any Error> {
        let result = locked {
            while ready[nextToTake] == nil { pthread_cond_wait(changed, mutex) }
            defer { nextToTake += 1 }
            return ready.removeValue(forKey: nextToTake)!
        }
        pthread_cond_broadcast(changed)
        return result
    }

    /// Gives a taken batch's buffers back for reuse.
    func recycle(_ batch: LoadedBatch) {
        locked { spare.append(batch) }
    }

    private func work(_ loader: inout BatchLoader) {
        while true {
            let claimed: (Int, LoadedBatch)? = locked {
                while !stopping && nextToLoad < batches.count && nextToLoad >= nextToTake + window {
                    pthread_cond_wait(changed, mutex)
                }
                guard !stopping, nextToLoad < batches.count else { return nil }
                defer { nextToLoad += 1 }
                return (nextToLoad, spare.popLast() ?? LoadedBatch())
            }
            guard var (index, loaded) = claimed else { return }
            let result: Result<LoadedBatch, any Error>
            do {
                try loader.load(batches[index], into: &loaded)
                result = .success(loaded)
            } catch {
                result = .failure(error)
            }
            locked { ready[index] = result }
            pthread_cond_broadcast(changed)
        }
    }

    /// A worker that could not start: every batch it would have loaded fails the same way.
    private func fail(_ error: any Error) {
        locked {
            while nextToLoad < batches.count {
                ready[nextToLoad] = .failure(error)
                nextToLoad += 1
            }
        }
        pthread_cond_broadcast(changed)
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

/// Runs `body` on a new thread.
private func startThread(_ body: @escaping @Sendable () -> Void) -> pthread_t {
    final class Box { let body: @Sendable () -> Void; init(_ body: @escaping @Sendable () -> Void) { self.body = body } }
    var thread = pthread_t()
    let context = Unmanaged.passRetained(Box(body)).toOpaque()
    let status = pthread_create(&thread, nil, { context in
        let box = Unmanaged<Box>.fromOpaque(context!).takeRetainedValue()
        box.body()
        return nil
    }, context)
    precondition(status == 0, "pthread_create failed: \(status)")
    return thread
}
