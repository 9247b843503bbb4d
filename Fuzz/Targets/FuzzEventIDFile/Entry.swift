import FuzzSupport

@_cdecl("FuzzEventIDFile_main")
func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt { runFuzzer(argc, argv, fuzzEventIDFile) }
