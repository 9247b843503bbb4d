import OrdersFormat

/// What ``OrdersClient/record(_:)`` throws for an event the spec does not
/// allow, naming the field: the format's error, named here so that an app
/// catches it with `import OrdersClient` alone.
public typealias InputError = OrdersFormat.InputError
