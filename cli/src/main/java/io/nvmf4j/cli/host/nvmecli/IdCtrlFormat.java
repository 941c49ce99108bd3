package io.nvmf4j.cli.host.nvmecli;

import static io.nvmf4j.cli.host.nvmecli.RawField.Kind.ASCII;
import static io.nvmf4j.cli.host.nvmecli.RawField.Kind.IEEE;
import static io.nvmf4j.cli.host.nvmecli.RawField.Kind.U128;
import static io.nvmf4j.cli.host.nvmecli.RawField.Kind.U16;
import static io.nvmf4j.cli.host.nvmecli.RawField.Kind.U32;
import static io.nvmf4j.cli.host.nvmecli.RawField.Kind.U8;
import static io.nvmf4j.cli.host.nvmecli.RawField.Kind.UUID;
import static io.nvmf4j.cli.host.nvmecli.RawField.bytes;
import static io.nvmf4j.cli.host.nvmecli.RawField.dec;
import static io.nvmf4j.cli.host.nvmecli.RawField.hex;

import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code nvme id-ctrl}: the Identify Controller data structure (CNS 01h; NVMe Base 2.0, Figure 275; the fabrics
 * fields of NVMe-oF 1.1, Figure 25) as nvme-cli 2.3 prints it: a FLAT JSON object with every field in the order and
 * with the value types of its {@code json_nvme_id_ctrl()}, and text in the layout of {@code __nvme_show_id_ctrl()}.
 * Offsets are those of Linux {@code struct nvme_id_ctrl}.
 */
public final class IdCtrlFormat {

    /** The fields in nvme-cli's order; "subnqn" is left out of JSON when empty, as nvme-cli does. */
    static final List<RawField> FIELDS = List.of(
            hex("vid", 0, U16), hex("ssvid", 2, U16),
            bytes("sn", 4, ASCII, 20), bytes("mn", 24, ASCII, 40), bytes("fr", 64, ASCII, 8),
            dec("rab", 72, U8), dec("ieee", 73, IEEE), hex("cmic", 76, U8), dec("mdts", 77, U8),
            hex("cntlid", 78, U16), hex("ver", 80, U32), hex("rtd3r", 84, U32), hex("rtd3e", 88, U32),
            hex("oaes", 92, U32), hex("ctratt", 96, U32), hex("rrls", 100, U16), dec("cntrltype", 111, U8),
            bytes("fguid", 112, UUID, 16), dec("crdt1", 128, U16), dec("crdt2", 130, U16), dec("crdt3", 132, U16),
            dec("nvmsr", 253, U8), dec("vwci", 254, U8), dec("mec", 255, U8),
            hex("oacs", 256, U16), dec("acl", 258, U8), dec("aerl", 259, U8), hex("frmw", 260, U8),
            hex("lpa", 261, U8), dec("elpe", 262, U8), dec("npss", 263, U8), hex("avscc", 264, U8),
            hex("apsta", 265, U8), dec("wctemp", 266, U16), dec("cctemp", 268, U16), dec("mtfa", 270, U16),
            dec("hmpre", 272, U32), dec("hmmin", 276, U32), dec("tnvmcap", 280, U128), dec("unvmcap", 296, U128),
            hex("rpmbs", 312, U32), dec("edstt", 316, U16), dec("dsto", 318, U8), dec("fwug", 319, U8),
            dec("kas", 320, U16), hex("hctma", 322, U16), dec("mntmt", 324, U16), dec("mxtmt", 326, U16),
            hex("sanicap", 328, U32), dec("hmminds", 332, U32), dec("hmmaxd", 336, U16),
            dec("nsetidmax", 338, U16), dec("endgidmax", 340, U16), dec("anatt", 342, U8), dec("anacap", 343, U8),
            dec("anagrpmax", 344, U32), dec("nanagrpid", 348, U32), dec("pels", 352, U32),
            dec("domainid", 356, U16), dec("megcap", 368, U128),
            hex("sqes", 512, U8), hex("cqes", 513, U8), dec("maxcmd", 514, U16), dec("nn", 516, U32),
            hex("oncs", 520, U16), hex("fuses", 522, U16), hex("fna", 524, U8), hex("vwc", 525, U8),
            dec("awun", 526, U16), dec("awupf", 528, U16), dec("icsvscc", 530, U8), dec("nwpc", 531, U8),
            dec("acwu", 532, U16), hex("ocfs", 534, U16), hex("sgls", 536, U32), dec("mnan", 540, U32),
            dec("maxdna", 544, U128), dec("maxcna", 560, U32),
            bytes("subnqn", 768, ASCII, 256),
            dec("ioccsz", 1792, U32), dec("iorcsz", 1796, U32), dec("icdoff", 1800, U16),
            hex("fcatt", 1802, U8), dec("msdbd", 1803, U8), dec("ofcs", 1804, U16));

    /** Power State Descriptor 0 starts here, 32 bytes each (NVMe Base 2.0, Figure 276). */
    static final int PSD_OFFSET = 2048;
    static final int PSD_SIZE = 32;
    private static final RawField NPSS = dec("npss", 263, U8);

    private IdCtrlFormat() {
    }

    /** {@code nvme id-ctrl -o json}: every field, then "psds" (one per power state, 0..NPSS). */
    public static Map<String, Object> json(MemorySegment data) {
        Map<String, Object> root = JsonC.object();
        for (RawField f : FIELDS) {
            Object v = f.json(data);
            if (f.name().equals("subnqn") && ((String) v).isEmpty()) {
                continue;
            }
            root.put(f.name(), v);
        }
        List<Object> psds = new ArrayList<>();
        long npss = NPSS.unsigned(data);
        for (int i = 0; i <= npss && i < 32; i++) {
            psds.add(psd(data.asSlice(PSD_OFFSET + (long) i * PSD_SIZE, PSD_SIZE)));
        }
        root.put("psds", psds);
        return root;
    }

    /** nvme-cli's keys for one power state descriptor. */
    private static Map<String, Object> psd(MemorySegment p) {
        Map<String, Object> o = JsonC.object();
        o.put("max_power", (int) dec("mp", 0, U16).unsigned(p));
        o.put("flags", (int) dec("flags", 3, U8).unsigned(p));
        o.put("entry_lat", (Integer) dec("enlat", 4, U32).json(p));
        o.put("exit_lat", (Integer) dec("exlat", 8, U32).json(p));
        o.put("read_tput", (int) dec("rrt", 12, U8).unsigned(p));
        o.put("read_lat", (int) dec("rrl", 13, U8).unsigned(p));
        o.put("write_tput", (int) dec("rwt", 14, U8).unsigned(p));
        o.put("write_lat", (int) dec("rwl", 15, U8).unsigned(p));
        o.put("idle_power", (int) dec("idlp", 16, U16).unsigned(p));
        o.put("idle_scale", (int) (dec("ips", 18, U8).unsigned(p) >> 6 & 0x3));
        o.put("active_power", (int) dec("actp", 20, U16).unsigned(p));
        long apws = dec("apws", 22, U8).unsigned(p);
        o.put("active_power_work", (int) (apws & 0x7));
        o.put("active_scale", (int) (apws >> 6 & 0x3));
        return o;
    }

    /** {@code nvme id-ctrl} (normal output): "name      : value" per field, then one line per power state. */
    public static void text(PrintWriter out, MemorySegment data) {
        text(out, data, false);
    }

    /** As {@link #text(PrintWriter, MemorySegment)}; {@code human} adds {@code -H}'s decoding under bit fields. */
    public static void text(PrintWriter out, MemorySegment data, boolean human) {
        out.println("NVME Identify Controller:");
        HumanFields.Lines lines = new HumanFields.Lines(out);
        for (RawField f : FIELDS) {
            out.printf("%-10s: %s%n", f.name(), f.text(data));
            if (!human) {
                continue;
            }
            HumanFields.Decoder d = HumanFields.ID_CTRL.get(f.name());
            if (d != null) {
                d.print(lines, f.unsigned(data));
            } else if (HumanFields.ID_CTRL_CAPACITIES.containsKey(f.name())) {
                HumanFields.capacity(lines, new java.math.BigInteger(f.text(data)),
                        HumanFields.ID_CTRL_CAPACITIES.get(f.name()));
            }
        }
        long npss = NPSS.unsigned(data);
        for (int i = 0; i <= npss && i < 32; i++) {
            MemorySegment p = data.asSlice(PSD_OFFSET + (long) i * PSD_SIZE, PSD_SIZE);
            // nvme-cli's nvme_show_id_ctrl_power() and print_ps_power_and_scale()
            long flags = dec("flags", 3, U8).unsigned(p);
            out.printf("ps %4d : mp:%s %soperational enlat:%d exlat:%d rrt:%d rrl:%d%n", i,
                    power(dec("mp", 0, U16).unsigned(p), (flags & 1) != 0 ? 1 : 2), (flags & 2) != 0 ? "non-" : "",
                    dec("enlat", 4, U32).unsigned(p), dec("exlat", 8, U32).unsigned(p),
                    dec("rrt", 12, U8).unsigned(p), dec("rrl", 13, U8).unsigned(p));
            out.printf("          rwt:%d rwl:%d idle_power:%s active_power:%s%n", dec("rwt", 14, U8).unsigned(p),
                    dec("rwl", 15, U8).unsigned(p),
                    power(dec("idlp", 16, U16).unsigned(p), (int) (dec("ips", 18, U8).unsigned(p) >> 6 & 3)),
                    power(dec("actp", 20, U16).unsigned(p), (int) (dec("apws", 22, U8).unsigned(p) >> 6 & 3)));
        }
        out.flush();
    }

    /** Power in the unit its scale names: 1 = 0.0001 W, 2 = 0.01 W, else not reported (NVMe Base 2.0, Figure 276). */
    private static String power(long value, int scale) {
        return switch (scale) {
            case 1 -> String.format(java.util.Locale.ROOT, "%d.%04dW", value / 10000, value % 10000);
            case 2 -> String.format(java.util.Locale.ROOT, "%d.%02dW", value / 100, value % 100);
            default -> "-";
        };
    }
}
