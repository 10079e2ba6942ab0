import Foundation

/// The check an EAN/UPC reading passes before it becomes a record: no bars right past its ends.
/// A product code read from part of something longer is the misread that costs most (a wrong
/// product in an inventory): a UPC-E read from the left half of an EAN-13 (its end guard matched
/// by the EAN-13's centre guard) has the EAN-13's right half going on where a real UPC-E has 7
/// modules of blank.
///
/// Only a reading whose middle line holds its symbology's bars (30, 22, 17; one more or less) is
/// judged: zbar's points on a rotated code may stop at the centre guard. One that holds more than
/// 3 bars more fails: it is part of something with more bars.
///
/// How: the code's axis, ends and module as ``LinearSpan`` finds them. On three lines along the
/// axis through the reading, the strip from 1.5 to 7 modules (plus the pass's rounding) beyond
/// each end is sampled for swings between the code's own dark and light levels. A reading fails when every
/// line judged (two at least) swings at least twice past an end and one of them three times: a
/// dark background (one swing) or one border line (two) is not bars, nor are the digits printed
/// beside a code that one line may cross. Lines that leave the image or have too little
/// contrast to judge do not count.
package enum QuietZones {
    /// Whether `symbol` (points in full-image pixels) may stand, judged on `image`, which is the
    /// full image reduced by `k` (1: the full image itself). Codes this does not judge pass.
    package static func pass(_ symbol: Symbol, in image: GrayImage, k: Int = 1) -> Bool {
        guard let span = LinearSpan(symbol, in: image, k: k), let (_, wanted) = LinearSpan.layout(symbol.symbology.rawValue) else { return true }
        let module = span.module, t0 = span.t0, t1 = span.t1
        // Under a pixel a module: too small to tell a bar from blur.
        guard module >= 1 else { return true }
        // The points of a reduced pass are rounded outwards by up to k pixels (one here).
        let margin = k > 1 ? 1.0 : 0.0
        // Only a reading whose span holds its symbology's bars is judged: zbar's points on a
        // rotated code may stop at the centre guard, and the ends would then lie inside the code.
        guard let held = span.barCount(s: span.line(0.5)) else { return true }
        // More bars inside its span than the code has: it was read from part of something with more
        // bars (zxing-cpp's thorough passes read a Japan Post code as an EAN-13).
        if held > wanted + 3 { return false }
        guard abs(held - wanted) <= 1 else { return true }
        var swung = 0, barred = 0, judged = 0
        for f in [0.35, 0.5, 0.65] {
            let s = span.line(f)
            // The code's own levels on this line: its darkest and lightest tenths.
            var code: [Double] = []
            var t = t0
            while t <= t1 { if let v = span.at(t, s) { code.append(v) }; t += 0.5 }
            guard let (lo, hi) = LinearSpan.levels(code) else { continue }
            let dark = lo + 0.35 * (hi - lo), light = lo + 0.65 * (hi - lo)
            // Swings between dark and light from `a` towards `b` (nil: mostly outside the image).
            func swings(from a: Double, to b: Double) -> Int? {
                let step = b > a ? 0.5 : -0.5
                var count = 0, inside = 0, total = 0
                var state = 0  // -1 dark, 1 light, 0 not yet either
                var t = a
                while step > 0 ? t <= b : t >= b {
                    total += 1
                    if let v = span.at(t, s) {
                        inside += 1
                        let now = v < dark ? -1 : v > light ? 1 : state
                        if state != 0 && now != state { count += 1 }
                        state = now
                    }
                    t += step
                }
                return inside * 2 >= total ? count : nil
            }
            let near = 1.5 * module + margin, far = 7 * module + margin
            let right = swings(from: t1 + near, to: t1 + far), left = swings(from: t0 - near, to: t0 - far)
            guard right != nil || left != nil else { continue }
            judged += 1
            let most = max(right ?? 0, left ?? 0)
            if most >= 2 { swung += 1 }
            if most >= 3 { barred += 1 }
        }
        // Bars: every line judged (two at least) swings at least twice past an end, and one of
        // them three times (one border line swings twice, a dark background once).
        return judged < 2 || swung < judged || barred == 0
    }
}
