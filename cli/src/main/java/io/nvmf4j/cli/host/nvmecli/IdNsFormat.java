package io.nvmf4j.cli.host.nvmecli;

import static io.nvmf4j.cli.host.nvmecli.RawField.Kind.HEX_BYTES;
import static io.nvmf4j.cli.host.nvmecli.RawField.Kind.U128;
import static io.nvmf4j.cli.host.nvmecli.RawField.Kind.U16;
import static io.nvmf4j.cli.host.nvmecli.RawField.Kind.U32;
import static io.nvmf4j.cli.host.nvmecli.RawField.Kind.U64;
import static io.nvmf4j.cli.host.nvmecli.RawField.Kind.U8;
import static io.nvmf4j.cli.host.nvmecli.RawField.bytes;
import static io.nvmf4j.cli.host.nvmecli.RawField.dec;
import static io.nvmf4j.cli.host.nvmecli.RawField.hex;

import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code nvme id-ns}: the Identify Namespace data structure (CNS 00h; NVMe Base 2.0 / NVM Command Set 1.0,
 * Figure 97) as nvme-cli 2.3 prints it: a flat JSON object in the order and with the value types of its
 * {@code json_nvme_id_ns()} (no "nsid" key: nvme-cli has none), and text in the layout of {@code nvme_show_id_ns()}.
 * Offsets are those of Linux {@code struct nvme_id_ns}.
 */
public final class IdNsFormat {

    static final RawField NSFEAT = hex("nsfeat", 24, U8);
    static final RawField NLBAF = dec("nlbaf", 25, U8);
    static final RawField FLBAS = hex("flbas", 26, U8);

    /** Up to "nvmsetid"; then npwg..nows only when NSFEAT bit 4 (OPTPERF) is set, as nvme-cli does. */
    static final List<RawField> HEAD = List.of(
            hex("nsze", 0, U64), hex("ncap", 8, U64), hex("nuse", 16, U64), NSFEAT, NLBAF, FLBAS,
            hex("mc", 27, U8), hex("dpc", 28, U8), hex("dps", 29, U8), hex("nmic", 30, U8), hex("rescap", 31, U8),
            hex("fpi", 32, U8), dec("dlfeat", 33, U8), dec("nawun", 34, U16), dec("nawupf", 36, U16),
            dec("nacwu", 38, U16), dec("nabsn", 40, U16), dec("nabo", 42, U16), dec("nabspf", 44, U16),
            dec("noiob", 46, U16), dec("nvmcap", 48, U128), dec("nsattr", 99, U8), dec("nvmsetid", 100, U16));
    static final List<RawField> OPTIMAL = List.of(
            dec("npwg", 64, U16), dec("npwa", 66, U16), dec("npdg", 68, U16), dec("npda", 70, U16),
            dec("nows", 72, U16));
    static final List<RawField> TAIL = List.of(
            dec("mssrl", 74, U16), dec("mcl", 76, U32), dec("msrc", 80, U8), dec("nulbaf", 82, U8),
            dec("anagrpid", 92, U32), dec("endgid", 102, U16), bytes("eui64", 120, HEX_BYTES, 8),
            bytes("nguid", 104, HEX_BYTES, 16));

    /** LBA Format 0 starts here, 4 bytes each: MS (16 bits), LBADS, RP (NVMe Base 2.0, Figure 98). */
    static final int LBAF_OFFSET = 128;

    private IdNsFormat() {
    }

    static List<RawField> fields(MemorySegment data) {
        List<RawField> all = new ArrayList<>(HEAD);
        if ((NSFEAT.unsigned(data) & 0x10) != 0) {
            all.addAll(OPTIMAL);
        }
        all.addAll(TAIL);
        return all;
    }

    /** {@code nvme id-ns -o json}. */
    public static Map<String, Object> json(MemorySegment data) {
        Map<String, Object> root = JsonC.object();
        for (RawField f : fields(data)) {
            root.put(f.name(), f.json(data));
        }
        List<Object> lbafs = new ArrayList<>();
        for (int i = 0; i <= NLBAF.unsigned(data) && i < 64; i++) {
            Map<String, Object> f = JsonC.object();
            f.put("ms", (int) dec("ms", LBAF_OFFSET + 4 * i, U16).unsigned(data));
            f.put("ds", (int) dec("ds", LBAF_OFFSET + 4 * i + 2, U8).unsigned(data));
            f.put("rp", (int) dec("rp", LBAF_OFFSET + 4 * i + 3, U8).unsigned(data));
            lbafs.add(f);
        }
        root.put("lbafs", lbafs);
        return root;
    }

    /** The text lines in nvme-cli's order (not the JSON's): the optimal I/O fields only with NSFEAT bit 4. */
    private static final List<String> TEXT_ORDER = List.of("nsze", "ncap", "nuse", "nsfeat", "nlbaf", "flbas", "mc",
            "dpc", "dps", "nmic", "rescap", "fpi", "dlfeat", "nawun", "nawupf", "nacwu", "nabsn", "nabo", "nabspf",
            "noiob", "nvmcap", "npwg", "npwa", "npdg", "npda", "nows", "mssrl", "mcl", "msrc", "nulbaf", "anagrpid",
            "nsattr", "nvmsetid", "endgid", "nguid", "eui64");

    /** {@code nvme id-ns} (normal output). */
    public static void text(PrintWriter out, long nsid, MemorySegment data) {
        text(out, nsid, data, false);
    }

    /**
     * {@code nvme id-ns} as nvme-cli 2.3's nvme_show_id_ns() prints it; {@code human} is {@code -H}: the bit fields
     * decoded under their line, and the LBA formats spelled out.
     */
    public static void text(PrintWriter out, long nsid, MemorySegment data, boolean human) {
        out.printf("NVME Identify Namespace %d:%n", nsid);
        java.util.Map<String, RawField> byName = new java.util.HashMap<>();
        for (RawField f : fields(data)) {
            byName.put(f.name(), f);
        }
        HumanFields.Lines lines = new HumanFields.Lines(out);
        for (String name : TEXT_ORDER) {
            RawField f = byName.get(name);
            if (f == null) {
                continue;   // npwg..nows without NSFEAT bit 4
            }
            // nvme-cli's own spacing: a tab after "nsattr", 8 columns for the others
            out.print(name.equals("nsattr") ? "nsattr\t: " + f.text(data) + "\n"
                    : String.format("%-8s: %s%n", name, f.text(data)));
            HumanFields.Decoder d = human ? HumanFields.ID_NS.get(name) : null;
            if (d != null) {
                d.print(lines, f.unsigned(data));
            }
        }
        // FLBAS bits 3:0 and 6:5 select the format in use (NVMe Base 2.0, Figure 97).
        long flbas = FLBAS.unsigned(data);
        long inUse = (flbas & 0xf) | (flbas >> 5 & 0x3) << 4;
        long formats = NLBAF.unsigned(data) + dec("nulbaf", 82, U8).unsigned(data);
        for (int i = 0; i <= formats && i < 64; i++) {
            long ms = dec("ms", LBAF_OFFSET + 4 * i, U16).unsigned(data);
            long ds = dec("ds", LBAF_OFFSET + 4 * i + 2, U8).unsigned(data);
            long rp = dec("rp", LBAF_OFFSET + 4 * i + 3, U8).unsigned(data);   // the byte, as nvme-cli prints it
            String use = i == inUse ? "(in use)" : "";
            if (human) {
                out.printf("LBA Format %2d : Metadata Size: %-3d bytes - Data Size: %-2d bytes - Relative Performance:"
                        + " %s %s %s%n", i, ms, 1L << ds, RawField.cHex(rp),
                        switch ((int) rp) {
                            case 3 -> "Degraded";
                            case 2 -> "Good";
                            case 1 -> "Better";
                            default -> "Best";
                        }, use);
            } else {
                out.printf("lbaf %2d : ms:%-3d lbads:%-2d rp:%s %s%n", i, ms, ds, RawField.cHex(rp), use);
            }
        }
        out.flush();
    }
}
