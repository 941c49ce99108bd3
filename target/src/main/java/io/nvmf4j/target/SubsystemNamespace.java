package io.nvmf4j.target;

import io.nvmf4j.target.backend.NamespaceBackend;
import io.nvmf4j.target.reservation.ReservationState;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * One NVMe namespace of an NVM subsystem (nvmet's {@code struct nvmet_ns}, SPDK's {@code struct spdk_nvmf_ns};
 * named apart from the initiator's {@code Namespace}, the host's view of one): its NSID, its backend, the
 * identifiers the host uses to recognise it across paths and reboots (NGUID, UUID, EUI-64; Identify Namespace and
 * the Namespace Identification Descriptor list), and whether it is enabled. A disabled namespace is inactive: I/O to
 * it fails with Invalid Namespace, Identify Namespace returns zeroes.
 *
 * <p>Enabling, disabling and removing are done through {@link Subsystem}, which tells every controller
 * (Namespace Attribute Changed event, like nvmet_ns_changed()).
 */
public final class SubsystemNamespace {

    private final long nsid;
    private final NamespaceBackend backend;
    private final byte[] nguid;
    private final UUID uuid;
    private final byte[] eui64;
    private final NamespaceStatistics statistics = new NamespaceStatistics();
    private volatile boolean enabled = true;
    /** Namespace Write Protection Config (feature 84h), nvmet's ns->readonly. */
    private volatile boolean writeProtected;
    /** Registrants and reservation (8.19); carried over to the namespace that replaces this one on a resize. */
    ReservationState reservation = new ReservationState();
    /** ANA group (Identify Namespace ANAGRPID; nvmet {@code ns->anagrpid}), 1 by default. */
    volatile int anaGroupId = Port.DEFAULT_ANA_GROUP;

    private SubsystemNamespace(long nsid, NamespaceBackend backend, byte[] nguid, UUID uuid, byte[] eui64) {
        this.nsid = nsid;
        this.backend = backend;
        this.nguid = nguid;
        this.uuid = uuid;
        this.eui64 = eui64;
    }

    /**
     * @param nsid    1..FFFFFFFEh
     * @param nguid   16 bytes or null (all zero: not reported)
     * @param uuid    or null (not reported)
     * @param eui64   8 bytes or null (not reported)
     */
    public static SubsystemNamespace of(long nsid, NamespaceBackend backend, byte[] nguid, UUID uuid, byte[] eui64) {
        if (nsid < 1 || nsid > 0xFFFF_FFFEL) {
            throw new IllegalArgumentException("NSID " + nsid + " outside 1..FFFFFFFEh");
        }
        Objects.requireNonNull(backend, "backend");
        if (nguid != null && nguid.length != 16) {
            throw new IllegalArgumentException("NGUID must be 16 bytes, got " + nguid.length);
        }
        if (eui64 != null && eui64.length != 8) {
            throw new IllegalArgumentException("EUI-64 must be 8 bytes, got " + eui64.length);
        }
        return new SubsystemNamespace(nsid, backend,
                nguid == null ? new byte[16] : nguid.clone(), uuid, eui64 == null ? new byte[8] : eui64.clone());
    }

    /** A namespace with only an NSID and a backend (no NGUID, UUID or EUI-64). */
    public static SubsystemNamespace of(long nsid, NamespaceBackend backend) {
        return of(nsid, backend, null, null, null);
    }

    /** Parses an NGUID as nvmetcli writes it ({@code 32 hex digits, dashes allowed}). */
    public static byte[] parseNguid(String text) {
        byte[] bytes = HexFormat.of().parseHex(text.replace("-", ""));
        if (bytes.length != 16) {
            throw new IllegalArgumentException("NGUID \"" + text + "\" is not 16 bytes");
        }
        return bytes;
    }

    public long nsid() {
        return nsid;
    }

    public NamespaceBackend backend() {
        return backend;
    }

    /** The NGUID (16 bytes, all zero when none is set). */
    public byte[] nguid() {
        return nguid.clone();
    }

    public Optional<UUID> uuid() {
        return Optional.ofNullable(uuid);
    }

    /** The IEEE EUI-64 (8 bytes, all zero when none is set). */
    public byte[] eui64() {
        return eui64.clone();
    }

    public boolean hasNguid() {
        return !Arrays.equals(nguid, new byte[16]);
    }

    public boolean hasEui64() {
        return !Arrays.equals(eui64, new byte[8]);
    }

    public boolean isEnabled() {
        return enabled;
    }

    void enabled(boolean value) {
        enabled = value;
    }

    /** Write protected (Set Features 84h): only Read and Flush are executed (nvmet_io_cmd_check_access()). */
    public boolean isWriteProtected() {
        return writeProtected;
    }

    void writeProtected(boolean on) {
        writeProtected = on;
    }

    public int anaGroupId() {
        return anaGroupId;
    }

    /**
     * Puts the namespace in ANA group {@code grpid} (1..128; nvmet_ns_ana_grpid_store()). Set before the namespace
     * is added; a change later is seen by hosts at their next ANA log page read.
     */
    public SubsystemNamespace anaGroupId(int grpid) {
        if (grpid < 1 || grpid > Port.MAX_ANA_GROUPS) {
            throw new IllegalArgumentException("ANA group " + grpid + " outside 1.." + Port.MAX_ANA_GROUPS);
        }
        anaGroupId = grpid;
        return this;
    }

    /** The reservation state (NVMe Base 2.0, 8.19): registrants, holder, generation, PTPL. */
    ReservationState reservation() {
        return reservation;
    }

    public NamespaceStatistics statistics() {
        return statistics;
    }

    @Override
    public String toString() {
        return "namespace " + nsid + " (" + backend.description() + (enabled ? "" : ", disabled") + ")";
    }
}
