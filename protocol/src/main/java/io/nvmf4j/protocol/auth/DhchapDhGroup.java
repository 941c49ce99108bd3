package io.nvmf4j.protocol.auth;

import java.util.Locale;
import java.util.Optional;

/**
 * The Diffie-Hellman groups of DH-HMAC-CHAP (NVMe Base 2.0, 8.13.5.1, figure "DH-HMAC-CHAP Diffie-Hellman group
 * identifiers"; Linux {@code NVME_AUTH_DHGROUP_NULL..8192}): {@link #NULL} means no DH exchange, the others are the
 * RFC 7919 finite-field groups (the arithmetic is the JDK's, see {@link FfdheGroups}). {@link #nvmetcliName()} is
 * the name of nvmetcli and the kernel's configfs ({@code dhchap_dhgroup}): {@code null}, {@code ffdhe2048}, ...
 */
public enum DhchapDhGroup {
    NULL(0, 0),
    FFDHE2048(1, 2048),
    FFDHE3072(2, 3072),
    FFDHE4096(3, 4096),
    FFDHE6144(4, 6144),
    FFDHE8192(5, 8192);

    private final int id;
    private final int bits;

    DhchapDhGroup(int id, int bits) {
        this.id = id;
        this.bits = bits;
    }

    /** The identifier on the wire (DHGID, AUTH_Negotiate DH group list): 0 to 5. */
    public int id() {
        return id;
    }

    /** Size of the prime in bits; 0 for {@link #NULL}. */
    public int bits() {
        return bits;
    }

    /** Length in bytes of a DH value (public value, shared secret) in this group: DHVLEN; 0 for {@link #NULL}. */
    public int valueLength() {
        return bits / 8;
    }

    public boolean isNull() {
        return this == NULL;
    }

    public String nvmetcliName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Optional<DhchapDhGroup> fromId(int id) {
        for (DhchapDhGroup g : values()) {
            if (g.id == id) {
                return Optional.of(g);
            }
        }
        return Optional.empty();
    }

    /** Accepts nvmetcli's names ({@code null}, {@code ffdhe2048}, ...; case-insensitive) and the bare size. */
    public static Optional<DhchapDhGroup> fromName(String name) {
        if (name == null) {
            return Optional.empty();
        }
        String n = name.trim().toLowerCase(Locale.ROOT);
        for (DhchapDhGroup g : values()) {
            if (g.nvmetcliName().equals(n) || (g.bits != 0 && n.equals(Integer.toString(g.bits)))) {
                return Optional.of(g);
            }
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return nvmetcliName();
    }
}
