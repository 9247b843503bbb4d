import OrdersReports

/// `count`, its thousands grouped, and `noun`, plural unless `count` is 1,
/// for messages to people: "1 event", "3,000,000 events".
func counted(_ count: some BinaryInteger, _ noun: String) -> String {
    "\(Thousands.grouped(count)) \(noun)\(count == 1 ? "" : "s")"
}
