/// How wide text is drawn in DejaVu Sans, the chart's font, so that a
/// chart is laid out from its labels' widths rather than guesses.
///
/// The advances, in ems, were measured by rendering each character with
/// rsvg-convert (librsvg 2.54, DejaVu Sans Book and Bold). A character
/// not in the table counts as an em, wider than any measured but `W` in
/// bold, so that an unknown label is never laid out too narrow.
enum TextWidth {
    /// The font every chart names first.
    static let fontFamily = "DejaVu Sans, Verdana, sans-serif"

    /// The width of `text` at `size` pixels, in pixels.
    static func of(_ text: String, size: Double, bold: Bool = false) -> Double {
        let table = bold ? boldASCII : regularASCII
        var ems = 0.0
        for scalar in text.unicodeScalars {
            if (32...126).contains(scalar.value) {
                ems += table[Int(scalar.value) - 32]
            } else {
                ems += other[scalar] ?? 1.0
            }
        }
        return ems * size
    }

    /// The advances of ASCII 32 (space) to 126 (`~`), regular.
    private static let regularASCII: [Double] = [
        0.318, 0.401, 0.46, 0.838, 0.636, 0.951, 0.78, 0.275, 0.39, 0.39, 0.5, 0.838, 0.318, 0.361, 0.318, 0.337,
        0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.337, 0.337, 0.838, 0.838, 0.838, 0.531,
        1, 0.711, 0.687, 0.698, 0.77, 0.632, 0.576, 0.775, 0.752, 0.295, 0.295, 0.656, 0.557, 0.863, 0.748, 0.787,
        0.604, 0.787, 0.695, 0.635, 0.595, 0.732, 0.684, 0.989, 0.685, 0.611, 0.685, 0.39, 0.337, 0.39, 0.838, 0.5,
        0.5, 0.613, 0.635, 0.55, 0.635, 0.615, 0.352, 0.635, 0.634, 0.278, 0.278, 0.58, 0.278, 0.975, 0.634, 0.612,
        0.635, 0.635, 0.395, 0.521, 0.393, 0.634, 0.592, 0.818, 0.592, 0.592, 0.525, 0.636, 0.337, 0.636, 0.838,
    ]

    /// The same, bold.
    private static let boldASCII: [Double] = [
        0.348, 0.456, 0.521, 0.838, 0.696, 1.002, 0.872, 0.306, 0.457, 0.457, 0.523, 0.838, 0.38, 0.415, 0.38, 0.365,
        0.696, 0.696, 0.696, 0.696, 0.696, 0.696, 0.696, 0.696, 0.696, 0.696, 0.4, 0.4, 0.838, 0.838, 0.838, 0.58,
        1, 0.774, 0.762, 0.734, 0.83, 0.683, 0.683, 0.821, 0.837, 0.372, 0.372, 0.775, 0.637, 0.995, 0.837, 0.85,
        0.733, 0.85, 0.77, 0.677, 0.704, 0.812, 0.774, 1.103, 0.771, 0.724, 0.725, 0.457, 0.365, 0.457, 0.838, 0.5,
        0.5, 0.675, 0.716, 0.593, 0.716, 0.678, 0.435, 0.716, 0.712, 0.343, 0.343, 0.665, 0.343, 1.042, 0.712, 0.687,
        0.716, 0.716, 0.493, 0.595, 0.478, 0.712, 0.652, 0.924, 0.645, 0.652, 0.582, 0.712, 0.365, 0.712, 0.838,
    ]

    /// Currency signs past ASCII (the bold ones are a tenth wider at most; the bold title names no currency).
    private static let other: [Unicode.Scalar: Double] = ["₩": 1.103, "¥": 0.696, "€": 0.696, "£": 0.696, "₹": 0.696]
}
