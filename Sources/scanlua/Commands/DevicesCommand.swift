import ScanCore
import ScanPipeline

/// `scanlua devices`: the cameras there are, with their formats and sizes.
enum DevicesCommand {
    static let command = Command(
        name: "devices",
        abstract: "List cameras (/dev/video*) with their pixel formats and frame sizes.",
        usage: "scanlua devices",
        options: [],
        notes: """
            Each /dev/videoN with its name and driver and, per pixel format, the sizes it offers; or why
            it cannot be used (permission, busy, not a capture node). Exit 4 when there is no camera.
            """,
        run: run)

    static func run(_ args: inout ArgumentList, _ o: OptionValues) throws -> Int32 {
        if let extra = args.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
        let devices = CameraSource.describeAll()
        if devices.isEmpty {
            Console.write("no cameras: /dev has no video* device\n")
            return ExitStatus.nothingFound
        }
        for d in devices { Console.write("\(d.device): \(d.description)\n") }
        return ExitStatus.success
    }
}
