package io.nvmf4j.cli.host.nvmecli;

import static io.nvmf4j.cli.host.nvmecli.RawField.Kind.U128;
import static io.nvmf4j.cli.host.nvmecli.RawField.Kind.U16;
import static io.nvmf4j.cli.host.nvmecli.RawField.Kind.U32;
import static io.nvmf4j.cli.host.nvmecli.RawField.Kind.U8;
import static io.nvmf4j.cli.host.nvmecli.RawField.dec;

import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;

/**
 * {@code nvme smart-log}: the SMART / Health Information log page (02h; NVMe Base 2.0, Figure 207) as nvme-cli
 * 2.3's {@code json_smart_log()} (without -H) and {@code nvme_show_smart_log()} print it. Offsets of Linux
 * {@code struct nvme_smart_log}.
 */
public final class SmartLogFormat {

    static final RawField CRITICAL_WARNING = dec("critical_warning", 0, U8);
    static final RawField TEMPERATURE = dec("temperature", 1, U16);
    static final List<RawField> COUNTERS = List.of(
            dec("avail_spare", 3, U8), dec("spare_thresh", 4, U8), dec("percent_used", 5, U8),
            dec("endurance_grp_critical_warning_summary", 6, U8),
            dec("data_units_read", 32, U128), dec("data_units_written", 48, U128),
            dec("host_read_commands", 64, U128), dec("host_write_commands", 80, U128),
            dec("controller_busy_time", 96, U128), dec("power_cycles", 112, U128),
            dec("power_on_hours", 128, U128), dec("unsafe_shutdowns", 144, U128), dec("media_errors", 160, U128),
            dec("num_err_log_entries", 176, U128), dec("warning_temp_time", 192, U32),
            dec("critical_comp_time", 196, U32));
    static final int TEMP_SENSORS = 200;
    static final List<RawField> THERMAL = List.of(
            dec("thm_temp1_trans_count", 216, U32), dec("thm_temp2_trans_count", 220, U32),
            dec("thm_temp1_total_time", 224, U32), dec("thm_temp2_total_time", 228, U32));

    private SmartLogFormat() {
    }

    public static Map<String, Object> json(MemorySegment log) {
        Map<String, Object> root = JsonC.object();
        root.put("critical_warning", CRITICAL_WARNING.json(log));
        root.put("temperature", TEMPERATURE.json(log));
        for (RawField f : COUNTERS) {
            root.put(f.name(), f.json(log));
        }
        for (int c = 0; c < 8; c++) {   // nvme-cli leaves out the sensors that read 0
            int t = (int) dec("t", TEMP_SENSORS + 2 * c, U16).unsigned(log);
            if (t != 0) {
                root.put("temperature_sensor_" + (c + 1), t);
            }
        }
        for (RawField f : THERMAL) {
            root.put(f.name(), f.json(log));
        }
        return root;
    }

    public static void text(PrintWriter out, String device, long nsid, MemorySegment log) {
        out.printf("Smart Log for NVME device:%s namespace-id:%x%n", device, nsid);
        out.printf("critical_warning\t\t\t: %s%n", RawField.cHex(CRITICAL_WARNING.unsigned(log)));
        long k = TEMPERATURE.unsigned(log);
        out.printf("temperature\t\t\t\t: %d°C (%d Kelvin)%n", k - 273, k);
        for (RawField f : COUNTERS) {
            out.printf("%-40s: %s%n", f.name(), f.text(log));
        }
        for (int c = 0; c < 8; c++) {
            long t = dec("t", TEMP_SENSORS + 2 * c, U16).unsigned(log);
            if (t != 0) {
                out.printf("Temperature Sensor %d           : %d°C (%d Kelvin)%n", c + 1, t - 273, t);
            }
        }
        for (RawField f : THERMAL) {
            out.printf("%-40s: %s%n", f.name(), f.text(log));
        }
        out.flush();
    }
}
