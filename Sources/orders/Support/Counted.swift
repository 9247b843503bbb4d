/// `count` and `noun`, plural unless `count` is 1, for messages to people:
/// "1 event", "17 events".
func counted(_ count: some BinaryInteger, _ noun: String) -> String {
    "\(count) \(noun)\(count == 1 ? "" : "s")"
}
