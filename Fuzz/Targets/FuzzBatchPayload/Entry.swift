import FuzzSupport

@_cdecl("FuzzBatchPayload_main")
func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt { runFuzzer(argc, argv, fuzzBatchPayload) }
