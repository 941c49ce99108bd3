package io.nvmf4j.cli.host.nvmecli;

import java.util.ArrayList;
import java.util.List;

/**
 * What {@code nvme get-feature} prints, as nvme-cli 2.3 prints it ({@code get_feature_id_print()} in nvme.c,
 * {@code nvme_feature_to_string()}, {@code nvme_select_to_string()}, {@code nvme_show_select_result()},
 * {@code nvme_feature_show_fields()} in nvme-print.c) and the data length libnvme's
 * {@code nvme_get_feature_length()} gives each Feature Identifier (NVMe Base 2.0, Figure 317).
 */
public final class FeatureFormat {

    private FeatureFormat() {
    }

    /** nvme_feature_to_string(). */
    public static String name(int fid) {
        return switch (fid) {
            case 0x01 -> "Arbitration";
            case 0x02 -> "Power Management";
            case 0x03 -> "LBA Range Type";
            case 0x04 -> "Temperature Threshold";
            case 0x05 -> "Error Recovery";
            case 0x06 -> "Volatile Write Cache";
            case 0x07 -> "Number of Queues";
            case 0x08 -> "Interrupt Coalescing";
            case 0x09 -> "Interrupt Vector Configuration";
            case 0x0a -> "Write Atomicity Normal";
            case 0x0b -> "Async Event Configuration";
            case 0x0c -> "Autonomous Power State Transition";
            case 0x0d -> "Host Memory Buffer";
            case 0x0e -> "Timestamp";
            case 0x0f -> "Keep Alive Timer";
            case 0x10 -> "Host Controlled Thermal Management";
            case 0x11 -> "Non-Operational Power State Config";
            case 0x12 -> "Read Recovery Level";
            case 0x13 -> "Predictable Latency Mode Config";
            case 0x14 -> "Predictable Latency Mode Window";
            case 0x15 -> "LBA Status Interval";
            case 0x16 -> "Host Behavior";
            case 0x17 -> "Sanitize";
            case 0x18 -> "Endurance Event Group Configuration";
            case 0x19 -> "I/O Command Set Profile";
            case 0x1a -> "Spinup Control";
            case 0x1d -> "Flexible Direct Placement";
            case 0x1e -> "Flexible Direct Placement Events";
            case 0x7d -> "Enhanced Controller Metadata";
            case 0x7e -> "Controller Metadata";
            case 0x7f -> "Namespace Metadata";
            case 0x80 -> "Software Progress";
            case 0x81 -> "Host Identifier";
            case 0x82 -> "Reservation Notification Mask";
            case 0x83 -> "Reservation Persistence";
            case 0x84 -> "Namespace Write Protect";
            default -> "Unknown";
        };
    }

    /** nvme_select_to_string(): SEL 0-3, and nvme-cli's own 8 ("changed": current against default). */
    public static String select(int sel) {
        return switch (sel) {
            case 0 -> "Current";
            case 1 -> "Default";
            case 2 -> "Saved";
            case 3 -> "Supported capabilities";
            case 8 -> "Changed";
            default -> "Reserved";
        };
    }

    /**
     * C's {@code printf("%#0*x", width, value)}: "0x" and zero padding to {@code width} characters in all, except
     * that a zero value gets no "0x" (the '#' flag adds it to non-zero values only), e.g. width 10: 0x001f001f,
     * 00000000.
     */
    public static String alternateHex(int width, long value) {
        if (value == 0) {
            return "0".repeat(width);
        }
        String digits = Long.toHexString(value);
        int pad = Math.max(0, width - 2 - digits.length());
        return "0x" + "0".repeat(pad) + digits;
    }

    /** The first line: {@code get-feature:0x07 (Number of Queues), Current value:0x001f001f}. */
    public static String header(int fid, int sel, int result) {
        return "get-feature:" + alternateHex(fid != 0 ? 4 : 2, fid) + " (" + name(fid) + "), " + select(sel)
                + " value:" + alternateHex(result != 0 ? 10 : 8, Integer.toUnsignedLong(result));
    }

    /** nvme_show_select_result() for SEL 3: the capability bits of DW0. */
    public static List<String> selectResult(int result) {
        List<String> out = new ArrayList<>();
        if ((result & 1) != 0) {
            out.add("  Feature is saveable");
        }
        if ((result & 2) != 0) {
            out.add("  Feature is per-namespace");
        }
        if ((result & 4) != 0) {
            out.add("  Feature is changeable");
        }
        return out;
    }

    /** libnvme nvme_get_feature_length(): bytes of data the feature returns (Host Identifier: 16 with EXHID). */
    public static int dataLength(int fid, int cdw11) {
        return switch (fid) {
            case 0x03 -> 4096;      // struct nvme_lba_range_type
            case 0x0c -> 256;       // struct nvme_feat_auto_pst
            case 0x0d -> 4096;      // struct nvme_host_mem_buf_attrs
            case 0x0e -> 8;         // struct nvme_timestamp
            case 0x13 -> 512;       // struct nvme_plm_config
            case 0x16 -> 512;       // struct nvme_feat_host_behavior
            case 0x7d, 0x7e, 0x7f -> 4096; // struct nvme_host_metadata
            case 0x81 -> (cdw11 & 1) != 0 ? 16 : 8;
            default -> 0;
        };
    }

    /**
     * nvme_feature_show_fields() ({@code -H}) for the features a fabrics controller implements and the simple
     * ones; features whose fields need their data structure decoded (LBA Range Type, APST, HMB, Timestamp, ...)
     * print nothing here (a stated difference).
     */
    public static List<String> fields(int fid, int result, byte[] buf) {
        List<String> o = new ArrayList<>();
        long r = Integer.toUnsignedLong(result);
        String send = "Send async event";
        String dont = "Do not send async event";
        switch (fid) {
            case 0x01 -> {
                o.add("\tHigh Priority Weight   (HPW): " + (((r & 0xff000000L) >> 24) + 1));
                o.add("\tMedium Priority Weight (MPW): " + (((r & 0x00ff0000L) >> 16) + 1));
                o.add("\tLow Priority Weight    (LPW): " + (((r & 0x0000ff00L) >> 8) + 1));
                o.add("\tArbitration Burst       (AB): " + ((r & 7) == 7 ? "No limit" : Long.toString(1L << (r & 7))));
            }
            case 0x02 -> {
                int wh = (int) ((r & 0xE0) >> 5);
                o.add("\tWorkload Hint (WH): " + wh + " - " + switch (wh) {
                    case 0 -> "No Workload";
                    case 1 -> "Extended Idle Period with a Burst of Random Writes";
                    case 2 -> "Heavy Sequential Writes";
                    default -> "Reserved";
                });
                o.add("\tPower State   (PS): " + (r & 0x1f));
            }
            case 0x04 -> {
                int thsel = (int) ((r & 0x00300000L) >> 20);
                int tmpsel = (int) ((r & 0x000f0000L) >> 16);
                long kelvin = r & 0xffff;
                o.add("\tThreshold Type Select         (THSEL): " + thsel + " - " + switch (thsel) {
                    case 0 -> "Over Temperature Threshold";
                    case 1 -> "Under Temperature Threshold";
                    default -> "Reserved";
                });
                o.add("\tThreshold Temperature Select (TMPSEL): " + tmpsel + " - "
                        + (tmpsel == 0 ? "Composite Temperature" : tmpsel <= 8 ? "Temperature Sensor " + tmpsel
                        : "Reserved"));
                o.add("\tTemperature Threshold         (TMPTH): " + (kelvin - 273) + "°C (" + kelvin + " Kelvin)");
            }
            case 0x05 -> {
                o.add("\tDeallocated or Unwritten Logical Block Error Enable (DULBE): "
                        + ((r & 0x00010000L) != 0 ? "Enabled" : "Disabled"));
                o.add("\tTime Limited Error Recovery                          (TLER): " + (r & 0xffff) * 100 + " ms");
            }
            case 0x06 -> o.add("\tVolatile Write Cache Enable (WCE): " + ((r & 1) != 0 ? "Enabled" : "Disabled"));
            case 0x07 -> {
                o.add("\tNumber of IO Completion Queues Allocated (NCQA): " + (((r & 0xffff0000L) >> 16) + 1));
                o.add("\tNumber of IO Submission Queues Allocated (NSQA): " + ((r & 0xffff) + 1));
            }
            case 0x08 -> {
                o.add("\tAggregation Time     (TIME): " + ((r & 0xff00) >> 8) * 100 + " usec");
                o.add("\tAggregation Threshold (THR): " + ((r & 0xff) + 1));
            }
            case 0x09 -> {
                o.add("\tCoalescing Disable (CD): " + ((r & 0x00010000L) != 0 ? "True" : "False"));
                o.add("\tInterrupt Vector   (IV): " + (r & 0xffff));
            }
            case 0x0a -> o.add("\tDisable Normal (DN): " + ((r & 1) != 0 ? "True" : "False"));
            case 0x0b -> {
                o.add("\tDiscovery Log Page Change Notices                         : " + ((r >> 31 & 1) != 0 ? send : dont));
                o.add("\tEndurance Group Event Aggregate Log Change Notices        : " + ((r >> 14 & 1) != 0 ? send : dont));
                o.add("\tLBA Status Information Notices                            : " + ((r >> 13 & 1) != 0 ? send : dont));
                o.add("\tPredictable Latency Event Aggregate Log Change Notices    : " + ((r >> 12 & 1) != 0 ? send : dont));
                o.add("\tAsymmetric Namespace Access Change Notices                : " + ((r >> 11 & 1) != 0 ? send : dont));
                o.add("\tTelemetry Log Notices                                     : " + ((r >> 10 & 1) != 0 ? send : dont));
                o.add("\tFirmware Activation Notices                               : " + ((r >> 9 & 1) != 0 ? send : dont));
                o.add("\tNamespace Attribute Notices                               : " + ((r >> 8 & 1) != 0 ? send : dont));
                o.add("\tSMART / Health Critical Warnings                          : " + ((r & 0xff) != 0 ? send : dont));
            }
            case 0x0f -> o.add("\tKeep Alive Timeout (KATO) in milliseconds: " + r);
            case 0x11 -> o.add("\tNon-Operational Power State Permissive Mode Enable (NOPPME): "
                    + ((r & 1) != 0 ? "True" : "False"));
            case 0x12 -> o.add("\tRead Recovery Level (RRL): " + (r & 0xf));
            case 0x80 -> o.add("\tPre-boot Software Load Count (PBSLC): " + (r & 0xff));
            case 0x81 -> {
                if (buf != null && buf.length >= 8) {
                    long id = 0;
                    for (int i = 7; i >= 0; i--) {
                        id = id << 8 | (buf[i] & 0xff);
                    }
                    o.add("\tHost Identifier (HOSTID):  " + Long.toUnsignedString(id));
                }
            }
            case 0x82 -> {
                o.add("\tMask Reservation Preempted Notification  (RESPRE): " + ((r & 8) != 0 ? "True" : "False"));
                o.add("\tMask Reservation Released Notification   (RESREL): " + ((r & 4) != 0 ? "True" : "False"));
                o.add("\tMask Registration Preempted Notification (REGPRE): " + ((r & 2) != 0 ? "True" : "False"));
            }
            case 0x83 -> o.add("\tPersist Through Power Loss (PTPL): " + ((r & 1) != 0 ? "True" : "False"));
            default -> {
                // fields not decoded here (see the class comment)
            }
        }
        return o;
    }
}
