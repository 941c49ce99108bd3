package io.nvmf4j.cli.host.nvmecli;

import static io.nvmf4j.cli.host.nvmecli.RawField.Kind.U16;
import static io.nvmf4j.cli.host.nvmecli.RawField.Kind.U32;
import static io.nvmf4j.cli.host.nvmecli.RawField.Kind.U64;
import static io.nvmf4j.cli.host.nvmecli.RawField.Kind.U8;
import static io.nvmf4j.cli.host.nvmecli.RawField.dec;

import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code nvme error-log}: Error Information log entries (01h, 64 bytes each; NVMe Base 2.0, Figure 205) as
 * nvme-cli 2.3's {@code json_error_log()} and {@code nvme_show_error_log()} print them. Offsets of Linux
 * {@code struct nvme_error_log_page}.
 */
public final class ErrorLogFormat {

    public static final int ENTRY_SIZE = 64;

    static final RawField ERROR_COUNT = dec("error_count", 0, U64);
    static final RawField SQID = dec("sqid", 8, U16);
    static final RawField CMDID = dec("cmdid", 10, U16);
    static final RawField STATUS = dec("status_field", 12, U16);
    static final RawField PARM = dec("parm_error_location", 14, U16);
    static final RawField LBA = dec("lba", 16, U64);
    static final RawField NSID = dec("nsid", 24, U32);
    static final RawField VS = dec("vs", 28, U8);
    static final RawField TRTYPE = dec("trtype", 29, U8);
    static final RawField CS = dec("cs", 32, U64);
    static final RawField TSI = dec("trtype_spec_info", 40, U16);

    private ErrorLogFormat() {
    }

    /** {"errors":[...]} with nvme-cli's keys; status_field is the status without the phase tag bit. */
    public static Map<String, Object> json(MemorySegment log, int entries) {
        List<Object> errors = new ArrayList<>();
        for (int i = 0; i < entries; i++) {
            MemorySegment e = log.asSlice((long) i * ENTRY_SIZE, ENTRY_SIZE);
            Map<String, Object> o = JsonC.object();
            o.put("error_count", ERROR_COUNT.json(e));
            o.put("sqid", SQID.json(e));
            o.put("cmdid", CMDID.json(e));
            long status = STATUS.unsigned(e);
            o.put("status_field", (int) (status >> 1));
            o.put("phase_tag", (int) (status & 1));
            o.put("parm_error_location", PARM.json(e));
            o.put("lba", LBA.json(e));
            o.put("nsid", NSID.json(e));
            o.put("vs", VS.json(e));
            o.put("trtype", TRTYPE.json(e));
            o.put("cs", CS.json(e));
            o.put("trtype_spec_info", TSI.json(e));
            errors.add(o);
        }
        Map<String, Object> root = JsonC.object();
        root.put("errors", errors);
        return root;
    }

    public static void text(PrintWriter out, String device, MemorySegment log, int entries) {
        out.printf("Error Log Entries for device:%s entries:%d%n", device, entries);
        out.println(".................");
        for (int i = 0; i < entries; i++) {
            MemorySegment e = log.asSlice((long) i * ENTRY_SIZE, ENTRY_SIZE);
            long status = STATUS.unsigned(e);
            out.printf(" Entry[%2d]   %n", i);
            out.println(".................");
            out.printf("error_count\t: %s%n", Long.toUnsignedString(ERROR_COUNT.unsigned(e)));
            out.printf("sqid\t\t: %d%n", SQID.unsigned(e));
            out.printf("cmdid\t\t: %s%n", RawField.cHex(CMDID.unsigned(e)));
            out.printf("status_field\t: %s%n", RawField.cHex(status >> 1));
            out.printf("phase_tag\t: %s%n", RawField.cHex(status & 1));
            out.printf("parm_err_loc\t: %s%n", RawField.cHex(PARM.unsigned(e)));
            out.printf("lba\t\t: %s%n", RawField.cHex(LBA.unsigned(e)));
            out.printf("nsid\t\t: %s%n", RawField.cHex(NSID.unsigned(e)));
            out.printf("vs\t\t: %d%n", VS.unsigned(e));
            out.printf("trtype\t\t: %d%n", TRTYPE.unsigned(e));
            out.printf("cs\t\t: %s%n", RawField.cHex(CS.unsigned(e)));
            out.printf("trtype_spec_info: %s%n", RawField.cHex(TSI.unsigned(e)));
            out.println(".................");
        }
        out.flush();
    }
}
