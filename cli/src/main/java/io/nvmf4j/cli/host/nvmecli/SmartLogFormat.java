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
        text(out, device, nsid, log, false);
    }

    /**
     * {@code nvme smart-log} (normal output) as nvme-cli 2.3's nvme_show_smart_log() prints it: its own labels, not
     * the JSON keys ({@code available_spare}, {@code percentage_used}, {@code Data Units Read}, {@code Warning
     * Temperature Time} ...), percentages with "%", data units with their size in SI bytes; {@code human} ({@code
     * -H}) adds the critical warning bits.
     */
    public static void text(PrintWriter out, String device, long nsid, MemorySegment log, boolean human) {
        StringBuilder b = new StringBuilder();
        b.append(String.format("Smart Log for NVME device:%s namespace-id:%x%n", device, nsid));
        long warning = CRITICAL_WARNING.unsigned(log);
        b.append(String.format("critical_warning\t\t\t: %s%n", RawField.cHex(warning)));
        if (human) {
            String[] bits = {"Available Spare[0]             ", "Temp. Threshold[1]             ",
                "NVM subsystem Reliability[2]   ", "Read-only[3]                   ",
                "Volatile mem. backup failed[4] ", "Persistent Mem. RO[5]          "};
            for (int i = 0; i < bits.length; i++) {
                b.append(String.format("      %s: %d%n", bits[i], warning >> i & 1));
            }
        }
        long k = TEMPERATURE.unsigned(log);
        b.append(String.format("temperature\t\t\t\t: %d°C (%d Kelvin)%n", k - 273, k));
        b.append(String.format("available_spare\t\t\t\t: %d%%%n", u8(log, 3)));
        b.append(String.format("available_spare_threshold\t\t: %d%%%n", u8(log, 4)));
        b.append(String.format("percentage_used\t\t\t\t: %d%%%n", u8(log, 5)));
        b.append(String.format("endurance group critical warning summary: %s%n", RawField.cHex(u8(log, 6))));
        b.append(String.format("Data Units Read\t\t\t\t: %s%n", dataUnits(log, 32)));
        b.append(String.format("Data Units Written\t\t\t: %s%n", dataUnits(log, 48)));
        String[][] counters = {{"host_read_commands\t\t\t", "64"}, {"host_write_commands\t\t\t", "80"},
            {"controller_busy_time\t\t\t", "96"}, {"power_cycles\t\t\t\t", "112"},
            {"power_on_hours\t\t\t\t", "128"}, {"unsafe_shutdowns\t\t\t", "144"},
            {"media_errors\t\t\t\t", "160"}, {"num_err_log_entries\t\t\t", "176"}};
        for (String[] c : counters) {
            b.append(c[0]).append(": ").append(dec("c", Integer.parseInt(c[1]), U128).text(log)).append('\n');
        }
        b.append(String.format("Warning Temperature Time\t\t: %d%n", dec("w", 192, U32).unsigned(log)));
        b.append(String.format("Critical Composite Temperature Time\t: %d%n", dec("c", 196, U32).unsigned(log)));
        for (int c = 0; c < 8; c++) {
            long t = dec("t", TEMP_SENSORS + 2 * c, U16).unsigned(log);
            if (t != 0) {
                b.append(String.format("Temperature Sensor %d           : %d°C (%d Kelvin)%n", c + 1, t - 273, t));
            }
        }
        String[] thermal = {"Thermal Management T1 Trans Count\t", "Thermal Management T2 Trans Count\t",
            "Thermal Management T1 Total Time\t", "Thermal Management T2 Total Time\t"};
        for (int i = 0; i < thermal.length; i++) {
            b.append(thermal[i]).append(": ").append(THERMAL.get(i).unsigned(log)).append('\n');
        }
        out.print(b);
        out.flush();
    }

    private static long u8(MemorySegment log, int offset) {
        return dec("b", offset, U8).unsigned(log);
    }

    /**
     * A data unit counter and its size: units of 1000 512-byte blocks (NVMe Base 2.0, Figure 207), in SI bytes with
     * two decimals as nvme-cli's uint128_t_to_si_string() ("1 (512.00 kB)", "0 (0.00 B)").
     */
    static String dataUnits(MemorySegment log, int offset) {
        String units = dec("u", offset, U128).text(log);
        return units + " (" + siBytes(new java.math.BigDecimal(units).multiply(java.math.BigDecimal.valueOf(512_000)))
                + ")";
    }

    static String siBytes(java.math.BigDecimal bytes) {
        String[] suffixes = {"Q", "R", "Y", "Z", "E", "P", "T", "G", "M", "k"};
        for (int i = 0; i < suffixes.length; i++) {
            java.math.BigDecimal magnitude = java.math.BigDecimal.TEN.pow(30 - 3 * i);
            if (bytes.compareTo(magnitude) >= 0) {
                return String.format(java.util.Locale.ROOT, "%.2f %sB",
                        bytes.divide(magnitude, 6, java.math.RoundingMode.HALF_EVEN).doubleValue(), suffixes[i]);
            }
        }
        return String.format(java.util.Locale.ROOT, "%.2f B", bytes.doubleValue());
    }
}
