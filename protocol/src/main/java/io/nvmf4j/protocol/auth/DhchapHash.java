package io.nvmf4j.protocol.auth;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The hash functions of DH-HMAC-CHAP (NVMe Base 2.0, 8.13.5.1 and figure "DH-HMAC-CHAP hash function
 * identifiers"; Linux {@code NVME_AUTH_HASH_SHA256..512} in {@code include/linux/nvme.h}). The identifier is the
 * one carried in AUTH_Negotiate's hash list and in the Challenge's HASHID, and also the {@code hh} of a
 * {@code DHHC-1:hh:...:} secret naming the transformation. {@link #nvmetcliName()} is the name nvmetcli and the
 * kernel's configfs use ({@code dhchap_hash}: {@code hmac(sha256)}).
 */
public enum DhchapHash {
    SHA256(1, "SHA-256", "HmacSHA256", 32),
    SHA384(2, "SHA-384", "HmacSHA384", 48),
    SHA512(3, "SHA-512", "HmacSHA512", 64);

    private final int id;
    private final String digestAlgorithm;
    private final String macAlgorithm;
    private final int length;

    DhchapHash(int id, String digestAlgorithm, String macAlgorithm, int length) {
        this.id = id;
        this.digestAlgorithm = digestAlgorithm;
        this.macAlgorithm = macAlgorithm;
        this.length = length;
    }

    /** The identifier on the wire (HASHID, AUTH_Negotiate hash list) and in a secret's {@code hh}: 1, 2 or 3. */
    public int id() {
        return id;
    }

    /** The digest (and HMAC) output length in bytes: HL of the Challenge. */
    public int length() {
        return length;
    }

    /** nvmetcli / configfs name: {@code hmac(sha256)}, {@code hmac(sha384)}, {@code hmac(sha512)}. */
    public String nvmetcliName() {
        return "hmac(" + name().toLowerCase(Locale.ROOT) + ")";
    }

    public static Optional<DhchapHash> fromId(int id) {
        for (DhchapHash h : values()) {
            if (h.id == id) {
                return Optional.of(h);
            }
        }
        return Optional.empty();
    }

    /**
     * Accepts nvmetcli's {@code hmac(sha256)} and the bare {@code sha256} / {@code sha-256} (case-insensitive),
     * as nvme-cli's {@code --hmac} names them.
     */
    public static Optional<DhchapHash> fromName(String name) {
        if (name == null) {
            return Optional.empty();
        }
        String n = name.trim().toLowerCase(Locale.ROOT);
        if (n.startsWith("hmac(") && n.endsWith(")")) {
            n = n.substring(5, n.length() - 1);
        }
        n = n.replace("-", "");
        for (DhchapHash h : values()) {
            if (h.name().toLowerCase(Locale.ROOT).equals(n)) {
                return Optional.of(h);
            }
        }
        return Optional.empty();
    }

    /** A fresh JDK HMAC keyed with {@code key}. */
    public Mac hmac(byte[] key) {
        try {
            Mac mac = Mac.getInstance(macAlgorithm);
            mac.init(new SecretKeySpec(key, macAlgorithm));
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(macAlgorithm + " unavailable in this JDK", e);
        }
    }

    /** A fresh JDK digest. */
    public MessageDigest digest() {
        try {
            return MessageDigest.getInstance(digestAlgorithm);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(digestAlgorithm + " unavailable in this JDK", e);
        }
    }

    @Override
    public String toString() {
        return nvmetcliName();
    }
}
