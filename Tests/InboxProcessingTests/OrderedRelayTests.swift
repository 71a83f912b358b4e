import Dispatch
import Synchronization
import Testing

@testable import InboxProcessing

/// The relay that takes an inbox run's events to the report, and the
/// registry made on another thread.
@Suite struct OrderedRelayTests {
    final class Log: Sendable {
        let events = Mutex<[Int]>([])
        let batches = Mutex<[Int]>([])
    }

    @Test func everyEventArrivesOnceInOrderAndInBatches() {
        let log = Log()
        let relay = OrderedRelay<Int>(label: "test", batchSize: 100, maximumDelay: .seconds(60)) { batch in
            log.events.withLock { $0 += batch }
            log.batches.withLock { $0.append(batch.count) }
        }
        for i in 0..<1_050 { relay.send(i) }
        // Steps queued after events run after them.
        let seen = relay.waitForDelivery { log.events.withLock { $0.count } }
        #expect(seen == 1_050)
        #expect(log.events.withLock { $0 } == Array(0..<1_050))
        #expect(log.batches.withLock { $0 } == Array(repeating: 100, count: 10) + [50])
    }

    @Test func anOldBatchLeavesWithoutWaitingToFill() {
        let log = Log()
        let relay = OrderedRelay<Int>(label: "test", batchSize: 1_000, maximumDelay: .zero) { batch in
            log.events.withLock { $0 += batch }
        }
        relay.send(1)
        relay.send(2)
        // With no delay allowed, each send after the first finds the batch old and hands it over.
        let delivered = DispatchSemaphore(value: 0)
        relay.afterDelivery { delivered.signal() }
        delivered.wait()
        #expect(log.events.withLock { $0 } == [1, 2])
    }

    struct Refused: Error, Equatable {}

    @Test func aBackgroundValueIsMadeOnceAndWaitedForAnywhere() throws {
        let made = Mutex(0)
        let value = BackgroundValue { () throws(Refused) -> Int in
            made.withLock { $0 += 1 }
            return 42
        }
        let results = Mutex<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let v = try? value.wait()
            results.withLock { $0.append(v ?? -1) }
        }
        #expect(results.withLock { $0 } == Array(repeating: 42, count: 8))
        #expect(made.withLock { $0 } == 1)
        let failing = BackgroundValue { () throws(Refused) -> Int in throw Refused() }
        #expect(throws: Refused.self) { try failing.wait() }
        #expect(throws: Refused.self) { try failing.wait() }
    }
}
