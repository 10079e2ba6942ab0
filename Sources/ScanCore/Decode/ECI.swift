/// Extended Channel Interpretation: the charset a code declares (ISO/IEC 15424, AIM ECI).
public enum ECI {
    /// The charset name records use for an ECI number (`eci-N` for the rest).
    public static func charsetName(_ eci: Int) -> String {
        switch eci {
        case 0, 2: return "cp437"
        case 1, 3: return "iso-8859-1"
        case 4...18 where eci != 14: return "iso-8859-\(eci - 2)"
        case 20: return "shift_jis"
        case 21: return "windows-1250"
        case 22: return "windows-1251"
        case 23: return "windows-1252"
        case 24: return "windows-1256"
        case 25: return "utf-16be"
        case 26: return "utf-8"
        case 27, 170: return "us-ascii"
        case 28: return "big5"
        case 29: return "gb2312"
        case 30: return "euc-kr"
        case 31: return "gbk"
        case 32: return "gb18030"
        case 33: return "utf-16le"
        case 34: return "utf-32be"
        case 35: return "utf-32le"
        case 899: return "binary"
        default: return "eci-\(eci)"
        }
    }
}
