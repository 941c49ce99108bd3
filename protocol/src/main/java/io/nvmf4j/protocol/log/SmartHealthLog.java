package io.nvmf4j.protocol.log;

import io.nvmf4j.protocol.Wire;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.admin.Uint128;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigInteger;

/**
 * The 512-byte SMART / Health Information log page (02h; NVMe Base 2.0, 5.16.1.3, Figure 207). Counters from byte 32
 * on are 128-bit little-endian values.
 *
 * <p><b>Data Units Read / Written</b> count thousands of 512-byte units, rounded up: a value of 1 means 1..1000
 * units of 512 bytes (up to 512,000 bytes) were transferred; 3 means 2001..3000 units. Use
 * {@link #dataUnitsFor(BigInteger)} to convert a byte count the way the spec asks.
 *
 * <p>Linux: {@code struct nvme_smart_log}; SPDK: {@code struct spdk_nvme_health_information_page}.
 */
public final class SmartHealthLog {

    public static final int SIZE = 512;
    public static final int OFFSET_CRITICAL_WARNING = 0;
    /** Composite Temperature, u16 Kelvin. */
    public static final int OFFSET_COMPOSITE_TEMPERATURE = 1;
    public static final int OFFSET_AVAILABLE_SPARE = 3;
    public static final int OFFSET_AVAILABLE_SPARE_THRESHOLD = 4;
    public static final int OFFSET_PERCENTAGE_USED = 5;
    public static final int OFFSET_ENDURANCE_GROUP_CRITICAL_WARNING = 6;
    public static final int OFFSET_DATA_UNITS_READ = 32;
    public static final int OFFSET_DATA_UNITS_WRITTEN = 48;
    public static final int OFFSET_HOST_READ_COMMANDS = 64;
    public static final int OFFSET_HOST_WRITE_COMMANDS = 80;
    public static final int OFFSET_CONTROLLER_BUSY_TIME = 96;
    public static final int OFFSET_POWER_CYCLES = 112;
    public static final int OFFSET_POWER_ON_HOURS = 128;
    public static final int OFFSET_UNSAFE_SHUTDOWNS = 144;
    public static final int OFFSET_MEDIA_ERRORS = 160;
    public static final int OFFSET_ERROR_LOG_ENTRIES = 176;
    public static final int OFFSET_WARNING_TEMPERATURE_TIME = 192;
    public static final int OFFSET_CRITICAL_TEMPERATURE_TIME = 196;
    /** Temperature Sensors 1-8, u16 Kelvin each (0 = not implemented). */
    public static final int OFFSET_TEMPERATURE_SENSOR = 200;
    public static final int TEMPERATURE_SENSORS = 8;

    /** One data unit is 1000 units of 512 bytes. */
    public static final long BYTES_PER_DATA_UNIT = 512_000;

    public static final int WARNING_SPARE = 1;
    public static final int WARNING_TEMPERATURE = 1 << 1;
    public static final int WARNING_RELIABILITY = 1 << 2;
    public static final int WARNING_READ_ONLY = 1 << 3;
    public static final int WARNING_VOLATILE_BACKUP = 1 << 4;

    private static final ValueLayout.OfShort U16 = Wire.LE_U16;
    private static final ValueLayout.OfInt U32 = Wire.LE_U32;
    private static final BigInteger UNIT = BigInteger.valueOf(BYTES_PER_DATA_UNIT);

    private final MemorySegment segment;

    private SmartHealthLog(MemorySegment segment) {
        this.segment = segment;
    }

    public static SmartHealthLog wrap(MemorySegment segment) {
        if (segment.byteSize() < SIZE) {
            throw new MalformedStructureException("SMART / health log needs " + SIZE + " bytes, got " + segment.byteSize());
        }
        return new SmartHealthLog(segment.asSlice(0, SIZE));
    }

    public static SmartHealthLog allocate() {
        return new SmartHealthLog(MemorySegment.ofArray(new byte[SIZE]));
    }

    public MemorySegment segment() {
        return segment;
    }

    /**
     * The Data Units value for {@code bytes} transferred: 512-byte units (rounded up), then thousands of those
     * (rounded up). Linux nvmet: {@code DIV_ROUND_UP(sectors, 1000)}.
     */
    public static BigInteger dataUnitsFor(BigInteger bytes) {
        BigInteger sectors = bytes.add(BigInteger.valueOf(511)).divide(BigInteger.valueOf(512));
        return sectors.add(BigInteger.valueOf(999)).divide(BigInteger.valueOf(1000));
    }

    public int criticalWarning() { return u8(OFFSET_CRITICAL_WARNING); }
    public SmartHealthLog criticalWarning(int v) { return u8(OFFSET_CRITICAL_WARNING, v); }
    /** Composite temperature in Kelvin. */
    public int compositeTemperature() { return Short.toUnsignedInt(segment.get(U16, OFFSET_COMPOSITE_TEMPERATURE)); }
    public SmartHealthLog compositeTemperature(int kelvin) {
        segment.set(U16, OFFSET_COMPOSITE_TEMPERATURE, (short) kelvin);
        return this;
    }
    /** Available spare, percent (0..100). */
    public int availableSpare() { return u8(OFFSET_AVAILABLE_SPARE); }
    public SmartHealthLog availableSpare(int v) { return u8(OFFSET_AVAILABLE_SPARE, v); }
    public int availableSpareThreshold() { return u8(OFFSET_AVAILABLE_SPARE_THRESHOLD); }
    public SmartHealthLog availableSpareThreshold(int v) { return u8(OFFSET_AVAILABLE_SPARE_THRESHOLD, v); }
    /** Percentage used; may exceed 100 (up to 255). */
    public int percentageUsed() { return u8(OFFSET_PERCENTAGE_USED); }
    public SmartHealthLog percentageUsed(int v) { return u8(OFFSET_PERCENTAGE_USED, v); }
    public int enduranceGroupCriticalWarning() { return u8(OFFSET_ENDURANCE_GROUP_CRITICAL_WARNING); }

    /** Data Units Read: thousands of 512-byte units, rounded up (see class comment). */
    public BigInteger dataUnitsRead() { return Uint128.read(segment, OFFSET_DATA_UNITS_READ); }
    public SmartHealthLog dataUnitsRead(BigInteger v) { return u128(OFFSET_DATA_UNITS_READ, v); }
    public BigInteger dataUnitsWritten() { return Uint128.read(segment, OFFSET_DATA_UNITS_WRITTEN); }
    public SmartHealthLog dataUnitsWritten(BigInteger v) { return u128(OFFSET_DATA_UNITS_WRITTEN, v); }
    public BigInteger hostReadCommands() { return Uint128.read(segment, OFFSET_HOST_READ_COMMANDS); }
    public SmartHealthLog hostReadCommands(BigInteger v) { return u128(OFFSET_HOST_READ_COMMANDS, v); }
    public BigInteger hostWriteCommands() { return Uint128.read(segment, OFFSET_HOST_WRITE_COMMANDS); }
    public SmartHealthLog hostWriteCommands(BigInteger v) { return u128(OFFSET_HOST_WRITE_COMMANDS, v); }
    /** Controller busy time, minutes. */
    public BigInteger controllerBusyTime() { return Uint128.read(segment, OFFSET_CONTROLLER_BUSY_TIME); }
    public SmartHealthLog controllerBusyTime(BigInteger v) { return u128(OFFSET_CONTROLLER_BUSY_TIME, v); }
    public BigInteger powerCycles() { return Uint128.read(segment, OFFSET_POWER_CYCLES); }
    public SmartHealthLog powerCycles(BigInteger v) { return u128(OFFSET_POWER_CYCLES, v); }
    public BigInteger powerOnHours() { return Uint128.read(segment, OFFSET_POWER_ON_HOURS); }
    public SmartHealthLog powerOnHours(BigInteger v) { return u128(OFFSET_POWER_ON_HOURS, v); }
    public BigInteger unsafeShutdowns() { return Uint128.read(segment, OFFSET_UNSAFE_SHUTDOWNS); }
    public SmartHealthLog unsafeShutdowns(BigInteger v) { return u128(OFFSET_UNSAFE_SHUTDOWNS, v); }
    public BigInteger mediaErrors() { return Uint128.read(segment, OFFSET_MEDIA_ERRORS); }
    public SmartHealthLog mediaErrors(BigInteger v) { return u128(OFFSET_MEDIA_ERRORS, v); }
    public BigInteger errorLogEntries() { return Uint128.read(segment, OFFSET_ERROR_LOG_ENTRIES); }
    public SmartHealthLog errorLogEntries(BigInteger v) { return u128(OFFSET_ERROR_LOG_ENTRIES, v); }
    /** Minutes above the warning composite temperature threshold. */
    public long warningTemperatureTime() { return Integer.toUnsignedLong(segment.get(U32, OFFSET_WARNING_TEMPERATURE_TIME)); }
    public SmartHealthLog warningTemperatureTime(long v) { segment.set(U32, OFFSET_WARNING_TEMPERATURE_TIME, (int) v); return this; }
    public long criticalTemperatureTime() { return Integer.toUnsignedLong(segment.get(U32, OFFSET_CRITICAL_TEMPERATURE_TIME)); }
    public SmartHealthLog criticalTemperatureTime(long v) { segment.set(U32, OFFSET_CRITICAL_TEMPERATURE_TIME, (int) v); return this; }

    /** Temperature sensor {@code n} (1..8) in Kelvin, 0 when not implemented. */
    public int temperatureSensor(int n) {
        return Short.toUnsignedInt(segment.get(U16, sensorOffset(n)));
    }

    public SmartHealthLog temperatureSensor(int n, int kelvin) {
        segment.set(U16, sensorOffset(n), (short) kelvin);
        return this;
    }

    private static long sensorOffset(int n) {
        if (n < 1 || n > TEMPERATURE_SENSORS) {
            throw new IllegalArgumentException("temperature sensor " + n + " outside 1..8");
        }
        return OFFSET_TEMPERATURE_SENSOR + (n - 1) * 2L;
    }

    private int u8(long offset) {
        return Byte.toUnsignedInt(segment.get(JAVA_BYTE, offset));
    }

    private SmartHealthLog u8(long offset, int v) {
        segment.set(JAVA_BYTE, offset, (byte) v);
        return this;
    }

    private SmartHealthLog u128(long offset, BigInteger v) {
        Uint128.write(segment, offset, v);
        return this;
    }

    @Override
    public String toString() {
        return String.format("SmartHealthLog[warning=%02xh temp=%dK spare=%d%% used=%d%% unitsRead=%s unitsWritten=%s "
                        + "reads=%s writes=%s powerOnHours=%s]", criticalWarning(), compositeTemperature(),
                availableSpare(), percentageUsed(), dataUnitsRead(), dataUnitsWritten(), hostReadCommands(),
                hostWriteCommands(), powerOnHours());
    }
}
