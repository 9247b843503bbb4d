import OrdersCore

/// Why a subscription's route changed nothing, as its controller answers it.
enum SubscriptionRefusal: Error, Equatable {
    /// No subscription has the name: 404.
    case unknown(String)
    /// Another definition holds the name; `field` is the first that differs: 409.
    case otherDefinition(field: String)
    /// A field of a definition, a body or a query that cannot be taken: 400.
    case invalid(field: String, reason: String)
    /// A seq the subscription does not select, or past the head: 400.
    case notSelected(Seq, reason: String)
    /// Its record could not be written: what it says changed is not known to be durable.
    case notDurable(reason: String)
}
