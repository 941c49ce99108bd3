package io.nvmf4j.protocol.admin;

/**
 * The event reported in DW0 of an Asynchronous Event Request completion (NVMe Base 2.0, Figure 146): Asynchronous
 * Event Type in bits 2:0, Asynchronous Event Information in bits 15:8, Log Page Identifier in bits 23:16. Bits 7:3
 * and 31:24 are reserved.
 *
 * <p>Linux: {@code nvmet_add_async_event(ctrl, type, info, lid)} builds {@code type | info << 8 | lid << 16};
 * SPDK: {@code union spdk_nvme_async_event_completion}.
 */
public record AsyncEvent(int type, int info, int logPageId) {

    public static final int TYPE_ERROR = 0;
    public static final int TYPE_SMART_HEALTH = 1;
    public static final int TYPE_NOTICE = 2;
    public static final int TYPE_IMMEDIATE = 3;
    public static final int TYPE_ONE_SHOT = 4;
    public static final int TYPE_IO_COMMAND_SET = 6;
    public static final int TYPE_VENDOR = 7;

    /** Notice: Namespace Attribute Changed; read log page 04h (Changed Namespace List). */
    public static final int NOTICE_NS_ATTRIBUTE_CHANGED = 0x00;
    public static final int NOTICE_FIRMWARE_ACTIVATION_STARTING = 0x01;
    public static final int NOTICE_TELEMETRY_LOG_CHANGED = 0x02;
    public static final int NOTICE_ANA_CHANGE = 0x03;
    /** I/O Command Set specific status: Reservation Log Page Available; read log page 80h (Linux NVME_AEN_RESV_LOG_PAGE_AVALIABLE). */
    public static final int IO_COMMAND_SET_RESERVATION_LOG_AVAILABLE = 0x00;
    /** Notice: Discovery Log Page Change; read log page 70h (NVMe-oF 1.1, 5.3). */
    public static final int NOTICE_DISCOVERY_LOG_CHANGED = 0xF0;

    public AsyncEvent {
        if (type < 0 || type > 7) {
            throw new IllegalArgumentException("asynchronous event type " + type + " outside 0..7");
        }
        if (info < 0 || info > 0xFF) {
            throw new IllegalArgumentException("asynchronous event information " + info + " outside 0..255");
        }
        if (logPageId < 0 || logPageId > 0xFF) {
            throw new IllegalArgumentException("log page identifier " + logPageId + " outside 0..255");
        }
    }

    /** The Namespace Attribute Changed notice, pointing at the Changed Namespace List (04h). */
    public static AsyncEvent namespaceAttributeChanged() {
        return new AsyncEvent(TYPE_NOTICE, NOTICE_NS_ATTRIBUTE_CHANGED, 0x04);
    }

    /** The Discovery Log Page Change notice, pointing at log page 70h. */
    public static AsyncEvent discoveryLogChanged() {
        return new AsyncEvent(TYPE_NOTICE, NOTICE_DISCOVERY_LOG_CHANGED, 0x70);
    }

    /** The Asymmetric Namespace Access Change notice, pointing at the ANA log page (0Ch; NVMe Base 2.0, 8.1.4). */
    public static AsyncEvent anaChanged() {
        return new AsyncEvent(TYPE_NOTICE, NOTICE_ANA_CHANGE, 0x0C);
    }

    /**
     * The Reservation Log Page Available event (type I/O Command Set specific, NVMe Base 2.0, Figure 150), pointing
     * at the Reservation Notification log page (80h); nvmet_pr_send_event_to_host() raises it.
     */
    public static AsyncEvent reservationLogAvailable() {
        return new AsyncEvent(TYPE_IO_COMMAND_SET, IO_COMMAND_SET_RESERVATION_LOG_AVAILABLE, 0x80);
    }

    /** Decodes completion DW0; reserved bits are ignored, as a host must. */
    public static AsyncEvent fromDw0(int dw0) {
        return new AsyncEvent(dw0 & 0x7, (dw0 >>> 8) & 0xFF, (dw0 >>> 16) & 0xFF);
    }

    public int toDw0() {
        return type | (info << 8) | (logPageId << 16);
    }

    public static String typeName(int type) {
        return switch (type) {
            case TYPE_ERROR -> "error";
            case TYPE_SMART_HEALTH -> "smart";
            case TYPE_NOTICE -> "notice";
            case TYPE_IMMEDIATE -> "immediate";
            case TYPE_ONE_SHOT -> "one-shot";
            case TYPE_IO_COMMAND_SET -> "io-command-set";
            case TYPE_VENDOR -> "vendor";
            default -> "reserved-" + type;
        };
    }

    @Override
    public String toString() {
        return String.format("AsyncEvent[%s info=%02xh lid=%02xh]", typeName(type), info, logPageId);
    }
}
