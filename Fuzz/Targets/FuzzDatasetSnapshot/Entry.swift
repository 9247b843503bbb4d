import FuzzSupport

@_cdecl("FuzzDatasetSnapshot_main")
func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt { runFuzzer(argc, argv, fuzzDatasetSnapshot) }
