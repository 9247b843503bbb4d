import FuzzSupport

@_cdecl("FuzzNDJSONLine_main")
func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt { runFuzzer(argc, argv, fuzzNDJSONLine) }
