package io.nvmf4j.verbs.softiwarp.rdmap;

/**
 * Terminate error layers, types and codes (RFC 5040 7.2 / RFC 5041 7.2 / RFC 5044 8 / RFC 6581; named and
 * numbered as siw's {@code enum term_elayer}, {@code ddp_etype}, {@code ddp_ecode}, {@code rdmap_etype},
 * {@code rdmap_ecode}, {@code llp_ecode} in iwarp.h).
 */
public final class TerminateCodes {
    private TerminateCodes() {
    }

    public static final int LAYER_RDMAP = 0;
    public static final int LAYER_DDP = 1;
    public static final int LAYER_LLP = 2;

    public static final int DDP_ETYPE_CATASTROPHIC = 0;
    public static final int DDP_ETYPE_TAGGED_BUF = 1;
    public static final int DDP_ETYPE_UNTAGGED_BUF = 2;

    public static final int DDP_ECODE_CATASTROPHIC = 0x00;
    public static final int DDP_ECODE_T_INVALID_STAG = 0x00;
    public static final int DDP_ECODE_T_BASE_BOUNDS = 0x01;
    public static final int DDP_ECODE_T_STAG_NOT_ASSOC = 0x02;
    public static final int DDP_ECODE_T_TO_WRAP = 0x03;
    public static final int DDP_ECODE_T_VERSION = 0x04;
    public static final int DDP_ECODE_UT_INVALID_QN = 0x01;
    public static final int DDP_ECODE_UT_INVALID_MSN_NOBUF = 0x02;
    public static final int DDP_ECODE_UT_INVALID_MSN_RANGE = 0x03;
    public static final int DDP_ECODE_UT_INVALID_MO = 0x04;
    public static final int DDP_ECODE_UT_MSG_TOOLONG = 0x05;
    public static final int DDP_ECODE_UT_VERSION = 0x06;

    public static final int RDMAP_ETYPE_CATASTROPHIC = 0;
    public static final int RDMAP_ETYPE_REMOTE_PROTECTION = 1;
    public static final int RDMAP_ETYPE_REMOTE_OPERATION = 2;

    public static final int RDMAP_ECODE_INVALID_STAG = 0x00;
    public static final int RDMAP_ECODE_BASE_BOUNDS = 0x01;
    public static final int RDMAP_ECODE_ACCESS_RIGHTS = 0x02;
    public static final int RDMAP_ECODE_STAG_NOT_ASSOC = 0x03;
    public static final int RDMAP_ECODE_TO_WRAP = 0x04;
    public static final int RDMAP_ECODE_VERSION = 0x05;
    public static final int RDMAP_ECODE_OPCODE = 0x06;
    public static final int RDMAP_ECODE_CATASTROPHIC_STREAM = 0x07;
    public static final int RDMAP_ECODE_CATASTROPHIC_GLOBAL = 0x08;
    public static final int RDMAP_ECODE_CANNOT_INVALIDATE = 0x09;
    public static final int RDMAP_ECODE_UNSPECIFIED = 0xff;

    public static final int LLP_ETYPE_MPA = 0;
    public static final int LLP_ECODE_TCP_STREAM_LOST = 0x01;
    public static final int LLP_ECODE_RECEIVED_CRC = 0x02;
    public static final int LLP_ECODE_FPDU_START = 0x03;
    public static final int LLP_ECODE_INVALID_REQ_RESP = 0x04;
    public static final int LLP_ECODE_LOCAL_CATASTROPHIC = 0x05;
    public static final int LLP_ECODE_INSUFFICIENT_IRD = 0x06;
    public static final int LLP_ECODE_NO_MATCHING_RTR = 0x07;

    /** The packed form used as {@code WorkCompletion.vendorError()}: {@code (layer << 12) | (etype << 8) | ecode}. */
    public static int pack(int layer, int etype, int ecode) {
        return (layer << 12) | (etype << 8) | ecode;
    }

    /** A readable description, e.g. "DDP tagged buffer error: invalid STag (1/1/0)". */
    public static String describe(int layer, int etype, int ecode) {
        String what = switch (layer) {
            case LAYER_RDMAP -> "RDMAP " + switch (etype) {
                case RDMAP_ETYPE_CATASTROPHIC -> "catastrophic error";
                case RDMAP_ETYPE_REMOTE_PROTECTION -> "remote protection error";
                case RDMAP_ETYPE_REMOTE_OPERATION -> "remote operation error";
                default -> "error type " + etype;
            } + switch (ecode) {
                case RDMAP_ECODE_INVALID_STAG -> ": invalid STag";
                case RDMAP_ECODE_BASE_BOUNDS -> ": base or bounds violation";
                case RDMAP_ECODE_ACCESS_RIGHTS -> ": access rights violation";
                case RDMAP_ECODE_STAG_NOT_ASSOC -> ": STag not associated with RDMAP stream";
                case RDMAP_ECODE_TO_WRAP -> ": TO wrap";
                case RDMAP_ECODE_VERSION -> ": invalid RDMAP version";
                case RDMAP_ECODE_OPCODE -> ": unexpected opcode";
                case RDMAP_ECODE_CATASTROPHIC_STREAM -> ": catastrophic error, localized to stream";
                case RDMAP_ECODE_CATASTROPHIC_GLOBAL -> ": catastrophic error, global";
                case RDMAP_ECODE_CANNOT_INVALIDATE -> ": STag cannot be invalidated";
                default -> ": unspecified";
            };
            case LAYER_DDP -> "DDP " + switch (etype) {
                case DDP_ETYPE_CATASTROPHIC -> "catastrophic error";
                case DDP_ETYPE_TAGGED_BUF -> "tagged buffer error" + switch (ecode) {
                    case DDP_ECODE_T_INVALID_STAG -> ": invalid STag";
                    case DDP_ECODE_T_BASE_BOUNDS -> ": base or bounds violation";
                    case DDP_ECODE_T_STAG_NOT_ASSOC -> ": STag not associated with DDP stream";
                    case DDP_ECODE_T_TO_WRAP -> ": TO wrap";
                    case DDP_ECODE_T_VERSION -> ": invalid DDP version";
                    default -> "";
                };
                case DDP_ETYPE_UNTAGGED_BUF -> "untagged buffer error" + switch (ecode) {
                    case DDP_ECODE_UT_INVALID_QN -> ": invalid QN";
                    case DDP_ECODE_UT_INVALID_MSN_NOBUF -> ": invalid MSN, no buffer available";
                    case DDP_ECODE_UT_INVALID_MSN_RANGE -> ": invalid MSN, MSN range";
                    case DDP_ECODE_UT_INVALID_MO -> ": invalid MO";
                    case DDP_ECODE_UT_MSG_TOOLONG -> ": message too long";
                    case DDP_ECODE_UT_VERSION -> ": invalid DDP version";
                    default -> "";
                };
                default -> "error type " + etype;
            };
            case LAYER_LLP -> "MPA error" + switch (ecode) {
                case LLP_ECODE_TCP_STREAM_LOST -> ": TCP connection lost";
                case LLP_ECODE_RECEIVED_CRC -> ": received MPA CRC does not match";
                case LLP_ECODE_FPDU_START -> ": marker/FPDU start error";
                case LLP_ECODE_INVALID_REQ_RESP -> ": invalid MPA request/reply";
                case LLP_ECODE_LOCAL_CATASTROPHIC -> ": local catastrophic";
                case LLP_ECODE_INSUFFICIENT_IRD -> ": insufficient IRD resources";
                case LLP_ECODE_NO_MATCHING_RTR -> ": no matching RTR option";
                default -> "";
            };
            default -> "layer " + layer + " error";
        };
        return what + " (" + layer + "/" + etype + "/" + ecode + ")";
    }
}
