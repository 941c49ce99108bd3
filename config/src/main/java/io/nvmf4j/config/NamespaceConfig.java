package io.nvmf4j.config;

import java.util.UUID;

/**
 * A namespace of a subsystem (Linux {@code nvmet_ns}).
 *
 * @param nsid       namespace id, 1 to 0xFFFFFFFE (0 and FFFFFFFFh are reserved, NVMe 1.4, 6.1)
 * @param enable     whether the namespace is active (nvmetcli's {@code "enable": 1})
 * @param backend    a file/block device or RAM; a disabled namespace may have an empty path (nvmetcli dumps
 *                   namespaces that were never given a device), so open backends of enabled namespaces only
 * @param blockSize  LBA data size in bytes, 512 or 4096
 * @param nguid      Namespace Globally Unique Identifier (16 bytes), or null to let the target derive one
 * @param uuid       Namespace UUID, or null to let the target derive one
 * @param anaGrpid   ANA group id (1-128), 1 by default
 */
public record NamespaceConfig(
        long nsid,
        boolean enable,
        DeviceConfig backend,
        int blockSize,
        byte[] nguid,
        UUID uuid,
        int anaGrpid) {

    public static final long NSID_MAX = 0xFFFF_FFFEL;

    public NamespaceConfig {
        nguid = nguid == null ? null : nguid.clone();
    }

    @Override
    public byte[] nguid() {
        return nguid == null ? null : nguid.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NamespaceConfig n
                && nsid == n.nsid && enable == n.enable && backend.equals(n.backend) && blockSize == n.blockSize
                && java.util.Arrays.equals(nguid, n.nguid) && java.util.Objects.equals(uuid, n.uuid)
                && anaGrpid == n.anaGrpid;
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(nsid, enable, backend, blockSize, java.util.Arrays.hashCode(nguid), uuid,
                anaGrpid);
    }

    @Override
    public String toString() {
        return "NamespaceConfig[nsid=" + nsid + ", enable=" + enable + ", backend=" + backend + ", blockSize="
                + blockSize + ", nguid=" + (nguid == null ? null : java.util.HexFormat.of().formatHex(nguid))
                + ", uuid=" + uuid + ", anaGrpid=" + anaGrpid + "]";
    }
}
