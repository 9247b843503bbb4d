import FuzzSupport

@_cdecl("FuzzPartSums_main")
func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt { runFuzzer(argc, argv, fuzzPartSums) }
