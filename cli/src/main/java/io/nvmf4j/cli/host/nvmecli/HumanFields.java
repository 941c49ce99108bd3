package io.nvmf4j.cli.host.nvmecli;

import java.io.PrintWriter;
import java.math.BigInteger;
import java.util.Map;

/**
 * The {@code -H} (human-readable) decoding nvme-cli 2.3 prints under a field of {@code nvme id-ctrl} and
 * {@code nvme id-ns}: one line per bit field, {@code "  [hi:lo] : VALUE\tMEANING"}, then an empty line. The bit
 * layouts are those of NVMe Base 2.0 (Identify Controller, Figure 275) and the NVM Command Set 1.0 (Identify
 * Namespace, Figure 97); the wording, the reserved ranges printed only when non-zero and the irregular indentation
 * are nvme-cli's, so that a script or an eye used to {@code nvme id-ctrl -H} reads the same lines here.
 */
final class HumanFields {

    /** Prints the decoding of one field's value. */
    @FunctionalInterface
    interface Decoder {
        void print(Lines out, long value);
    }

    /** Identify Controller fields that have a decoding, by nvme-cli's field name. */
    static final Map<String, Decoder> ID_CTRL = Map.ofEntries(
            Map.entry("cmic", HumanFields::cmic), Map.entry("oaes", HumanFields::oaes),
            Map.entry("ctratt", HumanFields::ctratt), Map.entry("cntrltype", HumanFields::cntrltype),
            Map.entry("nvmsr", HumanFields::nvmsr), Map.entry("vwci", HumanFields::vwci),
            Map.entry("mec", HumanFields::mec), Map.entry("oacs", HumanFields::oacs),
            Map.entry("frmw", HumanFields::frmw), Map.entry("lpa", HumanFields::lpa),
            Map.entry("elpe", HumanFields::elpe), Map.entry("npss", HumanFields::npss),
            Map.entry("avscc", HumanFields::avscc), Map.entry("apsta", HumanFields::apsta),
            Map.entry("wctemp", (o, v) -> temperature(o, v, "Warning Composite Temperature Threshold (WCTEMP)")),
            Map.entry("cctemp", (o, v) -> temperature(o, v, "Critical Composite Temperature Threshold (CCTEMP)")),
            Map.entry("rpmbs", HumanFields::rpmbs), Map.entry("hctma", HumanFields::hctma),
            Map.entry("mntmt", (o, v) -> temperature(o, v, "Minimum Thermal Management Temperature (MNTMT)")),
            Map.entry("mxtmt", (o, v) -> temperature(o, v, "Maximum Thermal Management Temperature (MXTMT)")),
            Map.entry("sanicap", HumanFields::sanicap), Map.entry("anacap", HumanFields::anacap),
            Map.entry("sqes", (o, v) -> entrySizes(o, v, "SQ")), Map.entry("cqes", (o, v) -> entrySizes(o, v, "CQ")),
            Map.entry("oncs", HumanFields::oncs), Map.entry("fuses", HumanFields::fuses),
            Map.entry("fna", HumanFields::fna), Map.entry("vwc", HumanFields::vwc),
            Map.entry("icsvscc", HumanFields::icsvscc), Map.entry("nwpc", HumanFields::nwpc),
            Map.entry("ocfs", HumanFields::ocfs), Map.entry("sgls", HumanFields::sgls),
            Map.entry("fcatt", HumanFields::fcatt), Map.entry("ofcs", HumanFields::ofcs));

    /** The 128-bit capacities, whose decoding is the number again with its name (nvme-cli's layout). */
    static final Map<String, String> ID_CTRL_CAPACITIES = Map.of(
            "tnvmcap", "Total NVM Capacity (TNVMCAP)", "unvmcap", "Unallocated NVM Capacity (UNVMCAP)");

    /** Identify Namespace fields that have a decoding. */
    static final Map<String, Decoder> ID_NS = Map.of(
            "nsfeat", HumanFields::nsfeat, "flbas", HumanFields::flbas, "mc", HumanFields::mc,
            "dpc", HumanFields::dpc, "dps", HumanFields::dps, "nmic", HumanFields::nmic,
            "rescap", HumanFields::rescap, "fpi", HumanFields::fpi, "dlfeat", HumanFields::dlfeat);

    private HumanFields() {
    }

    /** Where the decoded lines go. */
    static final class Lines {
        private final PrintWriter out;

        Lines(PrintWriter out) {
            this.out = out;
        }

        /** {@code prefix} is the bit range with nvme-cli's spacing, e.g. {@code "  [3:3] : "}. */
        void bits(String prefix, long value, String meaning) {
            out.print(prefix + RawField.cHex(value) + "\t" + meaning + "\n");
        }

        void text(String line) {
            out.print(line + "\n");
        }

        void end() {
            out.print("\n");
        }
    }

    /** "" or "Not ": nvme-cli's "%sSupported" pattern. */
    private static String not(long bit) {
        return bit != 0 ? "" : "Not ";
    }

    private static long bit(long v, int n) {
        return v >>> n & 1;
    }

    /** Each single-bit field from bit {@code hi} down to bit {@code lo}: "[n:n] : b\tNAME Supported". */
    private static void supported(Lines o, long v, int hi, String... names) {
        for (int i = 0; i < names.length; i++) {
            int n = hi - i;
            o.bits("  [" + n + ":" + n + "] : ", bit(v, n), names[i] + " " + not(bit(v, n)) + "Supported");
        }
    }

    private static void reserved(Lines o, String prefix, long value) {
        if (value != 0) {
            o.bits(prefix, value, "Reserved");
        }
    }

    static void cmic(Lines o, long v) {
        reserved(o, "  [7:4] : ", v >> 4 & 0xF);
        o.bits("  [3:3] : ", bit(v, 3), "ANA " + (bit(v, 3) != 0 ? "" : "not ") + "supported");
        o.bits("  [2:2] : ", bit(v, 2), bit(v, 2) != 0 ? "SR-IOV" : "PCI");
        o.bits("  [1:1] : ", bit(v, 1), (bit(v, 1) != 0 ? "Multi" : "Single") + " Controller");
        o.bits("  [0:0] : ", bit(v, 0), (bit(v, 0) != 0 ? "Multi" : "Single") + " Port");
        o.end();
    }

    static void oaes(Lines o, long v) {
        o.bits("  [31:31] : ", bit(v, 31), "Discovery Log Change Notice " + not(bit(v, 31)) + "Supported");
        reserved(o, "  [30:28] : ", v >> 28 & 0x7);
        o.bits("  [27:27] : ", bit(v, 27), "Zone Descriptor Changed Notices " + not(bit(v, 27)) + "Supported");
        reserved(o, "  [26:16] : ", v >> 16 & 0x7FF);
        o.bits("  [15:15] : ", bit(v, 15), "Normal NSS Shutdown Event " + not(bit(v, 15)) + "Supported");
        o.bits("  [14:14] : ", bit(v, 14), "Endurance Group Event Aggregate Log Page Change Notice "
                + not(bit(v, 14)) + "Supported");
        o.bits("  [13:13] : ", bit(v, 13), "LBA Status Information Notices " + not(bit(v, 13)) + "Supported");
        o.bits("  [12:12] : ", bit(v, 12), "Predictable Latency Event Aggregate Log Change Notices "
                + not(bit(v, 12)) + "Supported");
        o.bits("  [11:11] : ", bit(v, 11), "Asymmetric Namespace Access Change Notices " + not(bit(v, 11))
                + "Supported");
        reserved(o, "  [10:10] : ", bit(v, 10));
        o.bits("  [9:9] : ", bit(v, 9), "Firmware Activation Notices " + not(bit(v, 9)) + "Supported");
        o.bits("  [8:8] : ", bit(v, 8), "Namespace Attribute Changed Event " + not(bit(v, 8)) + "Supported");
        reserved(o, "  [7:0] : ", v & 0xFF);
        o.end();
    }

    static void ctratt(Lines o, long v) {
        reserved(o, " [31:20] : ", v >>> 20);
        o.bits("  [19:19] : ", bit(v, 19), "Flexible Data Placement " + not(bit(v, 19)) + "Supported");
        reserved(o, "  [18:16] : ", v >> 16 & 0x7);
        supported(o, v, 15, "Extended LBA Formats", "Delete NVM Set", "Delete Endurance Group",
                "Variable Capacity Management", "Fixed Capacity Management", "Multi Domain Subsystem", "UUID List",
                "SQ Associations", "Namespace Granularity", "Traffic Based Keep Alive", "Predictable Latency Mode",
                "Endurance Groups", "Read Recovery Levels", "NVM Sets", "Non-Operational Power State Permissive",
                "128-bit Host Identifier");
        o.end();
    }

    static void cntrltype(Lines o, long v) {
        String[] type = {"Controller type not reported", "I/O Controller", "Discovery Controller",
            "Administrative Controller"};
        // nvme-cli prints the reserved bits always, the whole byte as the [1:0] value, and no empty line after
        o.bits("  [7:2] : ", v >> 2 & 0x3F, "Reserved");
        o.bits("  [1:0] : ", v, type[(int) (v & 0x3)]);
    }

    static void nvmsr(Lines o, long v) {
        reserved(o, " [7:2] : ", v >> 2 & 0xFC);   // nvme-cli's mask, kept: the line is printed when it prints it
        o.bits("  [1:1] : ", bit(v, 1), "NVM subsystem " + not(bit(v, 1)) + "part of an Enclosure");
        o.bits("  [0:0] : ", bit(v, 0), "NVM subsystem " + not(bit(v, 0)) + "part of an Storage Device");
        o.end();
    }

    static void vwci(Lines o, long v) {
        o.bits("  [7:7] : ", bit(v, 7), "VPD Write Cycles Remaining field is " + not(bit(v, 7)) + "valid.");
        o.bits("  [6:0] : ", v & 0xFE, "VPD Write Cycles Remaining ");
        o.end();
    }

    static void mec(Lines o, long v) {
        reserved(o, " [7:2] : ", v >> 2 & 0xFC);
        o.bits("  [1:1] : ", bit(v, 1), "NVM subsystem " + not(bit(v, 1))
                + "contains a Management Endpoint on a PCIe port");
        o.bits("  [0:0] : ", bit(v, 0), "NVM subsystem " + not(bit(v, 0))
                + "contains a Management Endpoint on an SMBus/I2C port");
        o.end();
    }

    static void oacs(Lines o, long v) {
        reserved(o, " [15:11] : ", v >> 11 & 0x1F);
        o.bits("  [10:10] : ", bit(v, 10), "Lockdown Command and Feature " + not(bit(v, 10)) + "Supported");
        supported(o, v, 9, "Get LBA Status Capability", "Doorbell Buffer Config", "Virtualization Management",
                "NVMe-MI Send and Receive", "Directives", "Device Self-test", "NS Management and Attachment",
                "FW Commit and Download", "Format NVM", "Security Send and Receive");
        o.end();
    }

    static void frmw(Lines o, long v) {
        reserved(o, "  [7:6] : ", v >> 6 & 0x3);
        o.bits("  [5:5] : ", bit(v, 5), "Multiple FW or Boot Update Detection " + not(bit(v, 5)) + "Supported");
        o.bits("  [4:4] : ", bit(v, 4), "Firmware Activate Without Reset " + not(bit(v, 4)) + "Supported");
        o.bits("  [3:1] : ", v >> 1 & 0x7, "Number of Firmware Slots");
        o.bits("  [0:0] : ", bit(v, 0), "Firmware Slot 1 Read" + (bit(v, 0) != 0 ? "-Only" : "/Write"));
        o.end();
    }

    static void lpa(Lines o, long v) {
        reserved(o, "  [7:7] : ", bit(v, 7));
        o.bits("  [6:6] : ", bit(v, 6), "Telemetry Log Data Area 4 " + not(bit(v, 6)) + "Supported");
        o.bits("  [5:5] : ", bit(v, 5), "LID 0x0, Scope of each command in LID 0x5, 0x12, 0x13 " + not(bit(v, 5))
                + "Supported");
        o.bits("  [4:4] : ", bit(v, 4), "Persistent Event log " + not(bit(v, 4)) + "Supported");
        o.bits("  [3:3] : ", bit(v, 3), "Telemetry host/controller initiated log page " + not(bit(v, 3))
                + "Supported");
        o.bits("  [2:2] : ", bit(v, 2), "Extended data for Get Log Page " + not(bit(v, 2)) + "Supported");
        o.bits("  [1:1] : ", bit(v, 1), "Command Effects Log Page " + not(bit(v, 1)) + "Supported");
        o.bits("  [0:0] : ", bit(v, 0), "SMART/Health Log Page per NS " + not(bit(v, 0)) + "Supported");
        o.end();
    }

    static void elpe(Lines o, long v) {
        o.text("  [7:0] : " + v + " (0's based)\tError Log Page Entries (ELPE)");
        o.end();
    }

    static void npss(Lines o, long v) {
        o.text("  [7:0] : " + v + " (0's based)\tNumber of Power States Support (NPSS)");
        o.end();
    }

    static void avscc(Lines o, long v) {
        reserved(o, "  [7:1] : ", v >> 1 & 0x7F);
        o.bits("  [0:0] : ", bit(v, 0), "Admin Vendor Specific Commands uses "
                + (bit(v, 0) != 0 ? "NVMe" : "Vendor Specific") + " Format");
        o.end();
    }

    static void apsta(Lines o, long v) {
        reserved(o, "  [7:1] : ", v >> 1 & 0x7F);
        o.bits("  [0:0] : ", bit(v, 0), "Autonomous Power State Transitions " + not(bit(v, 0)) + "Supported");
        o.end();
    }

    /** A temperature in Kelvin, nvme-cli's kelvin_to_celsius() (273 subtracted) beside it. */
    static void temperature(Lines o, long kelvin, String name) {
        o.text(" [15:0] : " + (kelvin - 273) + "°C (" + kelvin + " Kelvin)\t" + name);
        o.end();
    }

    static void capacity(Lines o, BigInteger value, String name) {
        o.text("[127:0] : " + value);
        o.text("\t" + name);
        o.end();
    }

    static void rpmbs(Lines o, long v) {
        o.bits(" [31:24]: ", v >> 24 & 0xFF, "Access Size");
        o.bits(" [23:16]: ", v >> 16 & 0xFF, "Total Size");
        reserved(o, " [15:6] : ", v >> 6 & 0x3FF);
        o.bits("  [5:3] : ", v >> 3 & 0x7, "Authentication Method");
        o.bits("  [2:0] : ", v & 0x7, "Number of RPMB Units");
        o.end();
    }

    static void hctma(Lines o, long v) {
        reserved(o, " [15:1] : ", v >> 1 & 0x7FFF);
        o.bits("  [0:0] : ", bit(v, 0), "Host Controlled Thermal Management " + not(bit(v, 0)) + "Supported");
        o.end();
    }

    static void sanicap(Lines o, long v) {
        String[] media = {
            "Additional media modification after sanitize operation completes successfully is not defined",
            "Media is not additionally modified after sanitize operation completes successfully",
            "Media is additionally modified after sanitize operation completes successfully", "Reserved"};
        long nodmmas = v >> 30 & 0x3;
        o.bits("  [31:30] : ", nodmmas, media[(int) nodmmas]);
        // nvme-cli's wording: the bit set means No-Deallocate is NOT supported (NDI, "No-Deallocate Inhibited")
        o.bits("  [29:29] : ", bit(v, 29), "No-Deallocate After Sanitize bit in Sanitize command "
                + (bit(v, 29) != 0 ? "Not " : "") + "Supported");
        reserved(o, "  [28:3] : ", v >> 3 & 0x3FFFFFF);
        o.bits("    [2:2] : ", bit(v, 2), "Overwrite Sanitize Operation " + not(bit(v, 2)) + "Supported");
        o.bits("    [1:1] : ", bit(v, 1), "Block Erase Sanitize Operation " + not(bit(v, 1)) + "Supported");
        o.bits("    [0:0] : ", bit(v, 0), "Crypto Erase Sanitize Operation " + not(bit(v, 0)) + "Supported");
        o.end();
    }

    static void anacap(Lines o, long v) {
        o.bits("  [7:7] : ", bit(v, 7), "Non-zero group ID " + not(bit(v, 7)) + "Supported");
        o.bits("  [6:6] : ", bit(v, 6), "Group ID does " + (bit(v, 6) != 0 ? "not " : "") + "change");
        reserved(o, " [5:5] : ", bit(v, 5));
        supported(o, v, 4, "ANA Change state", "ANA Persistent Loss state", "ANA Inaccessible state",
                "ANA Non-optimized state", "ANA Optimized state");
        o.end();
    }

    static void entrySizes(Lines o, long v, String queue) {
        long max = v >> 4 & 0xF;
        long min = v & 0xF;
        o.bits("  [7:4] : ", max, "Max " + queue + " Entry Size (" + (1 << max) + ")");
        o.bits("  [3:0] : ", min, "Min " + queue + " Entry Size (" + (1 << min) + ")");
        o.end();
    }

    static void oncs(Lines o, long v) {
        reserved(o, " [15:9] : ", v >> 9 & 0x7F);
        supported(o, v, 8, "Copy", "Verify", "Timestamp", "Reservations", "Save and Select", "Write Zeroes",
                "Data Set Management", "Write Uncorrectable", "Compare");
        o.end();
    }

    static void fuses(Lines o, long v) {
        reserved(o, " [15:1] : ", v >> 1 & 0x7F);   // nvme-cli masks 0xFE, so bits 15:8 never show
        o.bits("  [0:0] : ", bit(v, 0), "Fused Compare and Write " + not(bit(v, 0)) + "Supported");
        o.end();
    }

    static void fna(Lines o, long v) {
        reserved(o, "  [7:4] : ", v >> 4 & 0xF);
        o.bits("  [3:3] : ", bit(v, 3), "Format NVM Broadcast NSID (FFFFFFFFh) " + (bit(v, 3) != 0 ? "Not " : "")
                + "Supported");
        o.bits("  [2:2] : ", bit(v, 2), "Crypto Erase " + not(bit(v, 2)) + "Supported as part of Secure Erase");
        o.bits("  [1:1] : ", bit(v, 1), "Crypto Erase Applies to " + (bit(v, 1) != 0 ? "All" : "Single")
                + " Namespace(s)");
        o.bits("  [0:0] : ", bit(v, 0), "Format Applies to " + (bit(v, 0) != 0 ? "All" : "Single")
                + " Namespace(s)");
        o.end();
    }

    static void vwc(Lines o, long v) {
        String[] flush = {"Support for the NSID field set to FFFFFFFFh is not indicated", "Reserved",
            "The Flush command does not support NSID set to FFFFFFFFh",
            "The Flush command supports NSID set to FFFFFFFFh"};
        reserved(o, "  [7:3] : ", v >> 3 & 0x1F);
        o.bits("  [2:1] : ", v >> 1 & 0x3, flush[(int) (v >> 1 & 0x3)]);
        o.bits("  [0:0] : ", bit(v, 0), "Volatile Write Cache " + not(bit(v, 0)) + "Present");
        o.end();
    }

    static void icsvscc(Lines o, long v) {
        reserved(o, "  [7:1] : ", v >> 1 & 0x7F);
        o.bits("  [0:0] : ", bit(v, 0), "NVM Vendor Specific Commands uses "
                + (bit(v, 0) != 0 ? "NVMe" : "Vendor Specific") + " Format");
        o.end();
    }

    static void nwpc(Lines o, long v) {
        reserved(o, "  [7:3] : ", v >> 3 & 0x1F);
        o.bits("  [2:2] : ", bit(v, 2), "Permanent Write Protect " + not(bit(v, 2)) + "Supported");
        o.bits("  [1:1] : ", bit(v, 1), "Write Protect Until Power Supply " + not(bit(v, 1)) + "Supported");
        o.bits("  [0:0] : ", bit(v, 0), "No Write Protect and Write Protect Namespace " + not(bit(v, 0))
                + "Supported");
        o.end();
    }

    static void ocfs(Lines o, long v) {
        reserved(o, "  [15:2] : ", v >> 2 & 0x3FFF);
        o.bits("  [1:1] : ", bit(v, 1), "Controller Copy Format 1h " + not(bit(v, 1)) + "Supported");
        o.bits("  [0:0] : ", bit(v, 0), "Controller Copy Format 0h " + not(bit(v, 0)) + "Supported");
        o.end();
    }

    static void sgls(Lines o, long v) {
        long support = v & 0x3;
        reserved(o, " [31:22]: ", v >> 22 & 0x3FF);
        // with SGLs not supported, nvme-cli prints a capability bit only when it is (oddly) set
        String[][] caps = {{"21", "Transport SGL Data Block Descriptor "}, {"20", "Address Offsets "},
            {"19", "Metadata Pointer Containing SGL Descriptor is "}, {"18", "SGL Length Larger than Buffer "},
            {"17", "Byte-Aligned Contig. MD Buffer "}, {"16", "SGL Bit-Bucket "}};
        for (String[] c : caps) {
            long b = bit(v, Integer.parseInt(c[0]));
            if (support != 0 || b != 0) {
                o.bits(" [" + c[0] + ":" + c[0] + "]: ", b, c[1] + not(b) + "Supported");
            }
        }
        o.bits(" [15:8] : ", v >> 8 & 0xFF, "SGL Descriptor Threshold");
        reserved(o, " [7:3] : ", v >> 3 & 0x1F);
        if (support != 0 || bit(v, 2) != 0) {
            o.bits("  [2:2] : ", bit(v, 2), "Keyed SGL Data Block descriptor " + not(bit(v, 2)) + "Supported");
        }
        switch ((int) support) {
            case 3 -> o.bits("  [1:0] : ", support, "Reserved");
            case 2 -> o.bits("  [1:0] : ", support, "Scatter-Gather Lists Supported. Dword alignment required.");
            case 1 -> o.bits("  [1:0] : ", support, "Scatter-Gather Lists Supported. No Dword alignment required.");
            default -> o.bits(" [1:0]  : ", support, "Scatter-Gather Lists Not Supported");
        }
        o.end();
    }

    static void fcatt(Lines o, long v) {
        reserved(o, "  [7:1] : ", v >> 1 & 0x7F);
        o.bits("  [0:0] : ", bit(v, 0), (bit(v, 0) != 0 ? "Static" : "Dynamic") + " Controller Model");
        o.end();
    }

    static void ofcs(Lines o, long v) {
        reserved(o, "  [15:1] : ", v >> 1 & 0x7FFF);
        // nvme-cli's spacing: "Disconnect command  Supported" when set, "Disconnect command Not Supported" when not
        o.bits("  [0:0] : ", bit(v, 0), "Disconnect command " + (bit(v, 0) != 0 ? "" : "Not") + " Supported");
        o.end();
    }

    static void nsfeat(Lines o, long v) {
        reserved(o, "  [7:5] : ", v >> 5 & 0x7);
        o.bits("  [4:4] : ", bit(v, 4), "NPWG, NPWA, NPDG, NPDA, and NOWS are " + not(bit(v, 4)) + "Supported");
        o.bits("  [3:3] : ", bit(v, 3), "NGUID and EUI64 fields if non-zero, " + (bit(v, 3) != 0 ? "Never " : "")
                + "Reused");
        o.bits("  [2:2] : ", bit(v, 2), "Deallocated or Unwritten Logical Block error " + not(bit(v, 2))
                + "Supported");
        o.bits("  [1:1] : ", bit(v, 1), "Namespace uses " + (bit(v, 1) != 0 ? "NAWUN, NAWUPF, and NACWU"
                : "AWUN, AWUPF, and ACWU"));
        o.bits("  [0:0] : ", bit(v, 0), "Thin Provisioning " + not(bit(v, 0)) + "Supported");
        o.end();
    }

    static void flbas(Lines o, long v) {
        reserved(o, "  [7:7] : ", bit(v, 7));
        o.bits("  [6:5] : ", v >> 5 & 0x3, "Most significant 2 bits of Current LBA Format Selected");
        o.bits("  [4:4] : ", bit(v, 4), "Metadata Transferred " + (bit(v, 4) != 0 ? "at End of Data LBA"
                : "in Separate Contiguous Buffer"));
        o.bits("  [3:0] : ", v & 0xF, "Least significant 4 bits of Current LBA Format Selected");
        o.end();
    }

    static void mc(Lines o, long v) {
        reserved(o, "  [7:2] : ", v >> 2 & 0x3F);
        o.bits("  [1:1] : ", bit(v, 1), "Metadata Pointer " + not(bit(v, 1)) + "Supported");
        o.bits("  [0:0] : ", bit(v, 0), "Metadata as Part of Extended Data LBA " + not(bit(v, 0)) + "Supported");
        o.end();
    }

    static void dpc(Lines o, long v) {
        reserved(o, "  [7:5] : ", v >> 5 & 0x7);
        supported(o, v, 4, "Protection Information Transferred as Last 8 Bytes of Metadata",
                "Protection Information Transferred as First 8 Bytes of Metadata", "Protection Information Type 3",
                "Protection Information Type 2", "Protection Information Type 1");
        o.end();
    }

    static void dps(Lines o, long v) {
        long pit = v & 0x7;
        reserved(o, "  [7:4] : ", v >> 4 & 0xF);
        o.bits("  [3:3] : ", bit(v, 3), "Protection Information is Transferred as "
                + (bit(v, 3) != 0 ? "First" : "Last") + " 8 Bytes of Metadata");
        o.bits("  [2:0] : ", pit, "Protection Information " + switch ((int) pit) {
            case 0 -> "Disabled";
            case 1 -> "Type 1 Enabled";
            case 2 -> "Type 2 Enabled";
            case 3 -> "Type 3 Enabled";
            default -> "Reserved Enabled";
        });
        o.end();
    }

    static void nmic(Lines o, long v) {
        reserved(o, "  [7:1] : ", v >> 1 & 0x7F);
        o.bits("  [0:0] : ", bit(v, 0), "Namespace Multipath " + not(bit(v, 0)) + "Capable");
        o.end();
    }

    static void rescap(Lines o, long v) {
        o.bits("  [7:7] : ", bit(v, 7), "Ignore Existing Key - Used as defined in revision "
                + (bit(v, 7) != 0 ? "1.3 or later" : "1.2.1 or earlier"));
        supported(o, v, 6, "Exclusive Access - All Registrants", "Write Exclusive - All Registrants",
                "Exclusive Access - Registrants Only", "Write Exclusive - Registrants Only", "Exclusive Access",
                "Write Exclusive", "Persist Through Power Loss");
        o.end();
    }

    static void fpi(Lines o, long v) {
        long remaining = v & 0x7F;
        o.bits("  [7:7] : ", bit(v, 7), "Format Progress Indicator " + not(bit(v, 7)) + "Supported");
        if (bit(v, 7) != 0 || remaining != 0) {
            o.bits("  [6:0] : ", remaining, "Format Progress Indicator (Remaining " + remaining + "%)");
        }
        o.end();
    }

    static void dlfeat(Lines o, long v) {
        long read = v & 0x7;
        reserved(o, "  [7:5] : ", v >> 5 & 0x7);
        o.bits("  [4:4] : ", bit(v, 4), "Guard Field of Deallocated Logical Blocks is set to "
                + (bit(v, 4) != 0 ? "CRC of The Value Read" : "0xFFFF"));
        o.bits("  [3:3] : ", bit(v, 3), "Deallocate Bit in the Write Zeroes Command is " + not(bit(v, 3))
                + "Supported");
        o.bits("  [2:0] : ", read, "Bytes Read From a Deallocated Logical Block and its Metadata are "
                + switch ((int) read) {
                    case 0 -> "Not Reported";
                    case 1 -> "0x00";
                    case 2 -> "0xFF";
                    default -> "Reserved Value";
                });
        o.end();
    }
}
