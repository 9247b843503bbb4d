import FuzzSupport

@_cdecl("FuzzSnapshotFile_main")
func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt { runFuzzer(argc, argv, fuzzSnapshotFile) }
