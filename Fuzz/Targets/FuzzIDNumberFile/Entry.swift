import FuzzSupport

@_cdecl("FuzzIDNumberFile_main")
func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt { runFuzzer(argc, argv, fuzzIDNumberFile) }
