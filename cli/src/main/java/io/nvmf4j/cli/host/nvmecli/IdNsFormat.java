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

    /** {@code nvme id-ns} (normal output). */
    public static void text(PrintWriter out, long nsid, MemorySegment data) {
        out.printf("NVME Identify Namespace %d:%n", nsid);
        for (RawField f : fields(data)) {
            out.printf("%-8s: %s%n", f.name(), f.text(data));
        }
        // FLBAS bits 3:0 and 6:5 select the format in use (NVMe Base 2.0, Figure 97).
        long flbas = FLBAS.unsigned(data);
        long inUse = (flbas & 0xf) | (flbas >> 5 & 0x3) << 4;
        for (int i = 0; i <= NLBAF.unsigned(data) && i < 64; i++) {
            out.printf("lbaf %2d : ms:%-3d lbads:%-2d rp:%s %s%n", i,
                    dec("ms", LBAF_OFFSET + 4 * i, U16).unsigned(data),
                    dec("ds", LBAF_OFFSET + 4 * i + 2, U8).unsigned(data),
                    RawField.cHex(dec("rp", LBAF_OFFSET + 4 * i + 3, U8).unsigned(data)),
                    i == inUse ? "(in use)" : "");
        }
        out.flush();
    }
}
