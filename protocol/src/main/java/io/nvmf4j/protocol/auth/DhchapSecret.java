package io.nvmf4j.protocol.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;
import java.util.zip.CRC32;
import javax.crypto.Mac;

/**
 * A DH-HMAC-CHAP secret in its standard representation (NVMe Base 2.0, 8.13.5.8 "DH-HMAC-CHAP secret
 * representation"): {@code DHHC-1:hh:<base64(key || CRC-32 little-endian)>:}, as {@code nvme gen-dhchap-key}
 * prints it and Linux reads it ({@code nvme_auth_extract_key()} in {@code drivers/nvme/common/auth.c}).
 *
 * <p>{@code hh} names the transformation applied to the key before use: 00 none, 01/02/03 HMAC-SHA-256/384/512
 * keyed with the key over the NQN and "NVMe-over-Fabrics" ({@link #transform(String)}, 8.13.5.7; Linux
 * {@code nvme_auth_transform_key()}). The key is 32, 48 or 64 bytes. Like the kernel, any of the three lengths is
 * accepted with any {@code hh} when parsing; {@link #generate} follows nvme-cli and requires the length of the
 * hash when one is named.
 *
 * <p>Instances are immutable. {@link #toString()} never shows the key; {@link #format()} does (only for writing a
 * key file or showing a freshly generated key).
 */
public final class DhchapSecret {

    /** The representation's prefix, version 1. */
    public static final String PREFIX = "DHHC-1:";

    /** The string appended to the NQN in the key transformation (8.13.5.7, {@code nvme_auth_transform_key()}). */
    static final byte[] TRANSFORM_SUFFIX = "NVMe-over-Fabrics".getBytes(StandardCharsets.US_ASCII);

    private final int hashId;
    private final byte[] key;

    private DhchapSecret(int hashId, byte[] key) {
        this.hashId = hashId;
        this.key = key;
    }

    /**
     * A secret of the given raw key and transformation identifier (0 none, 1 to 3 {@link DhchapHash}).
     *
     * @throws InvalidDhchapSecretException for an identifier above 3 or a key not 32, 48 or 64 bytes long
     */
    public static DhchapSecret of(int hashId, byte[] key) {
        checkHashId(hashId);
        checkKeyLength(key.length);
        return new DhchapSecret(hashId, key.clone());
    }

    /**
     * Reads the standard representation. Surrounding whitespace (a trailing newline of a key file) is ignored; the
     * final ':' may be missing, as Linux accepts.
     *
     * @throws InvalidDhchapSecretException naming what is wrong, never quoting the secret
     */
    public static DhchapSecret parse(String text) {
        if (text == null) {
            throw new InvalidDhchapSecretException("DH-HMAC-CHAP secret missing");
        }
        String s = text.strip();
        if (!s.startsWith(PREFIX)) {
            throw new InvalidDhchapSecretException(
                    "DH-HMAC-CHAP secret must start with '" + PREFIX + "' (the format of nvme gen-dhchap-key)");
        }
        if (s.length() < PREFIX.length() + 3 || s.charAt(PREFIX.length() + 2) != ':') {
            throw new InvalidDhchapSecretException(
                    "DH-HMAC-CHAP secret: expected a two-digit hash identifier and ':' after '" + PREFIX + "'");
        }
        String hh = s.substring(PREFIX.length(), PREFIX.length() + 2);
        int hashId;
        try {
            hashId = Integer.parseInt(hh, 16);
        } catch (NumberFormatException e) {
            throw new InvalidDhchapSecretException("DH-HMAC-CHAP secret: hash identifier is not two hex digits");
        }
        if (hh.charAt(0) == '+' || hh.charAt(0) == '-') {
            throw new InvalidDhchapSecretException("DH-HMAC-CHAP secret: hash identifier is not two hex digits");
        }
        checkHashId(hashId);
        String body = s.substring(PREFIX.length() + 3);
        if (body.endsWith(":")) {
            body = body.substring(0, body.length() - 1);
        }
        if (body.indexOf(':') >= 0) {
            throw new InvalidDhchapSecretException("DH-HMAC-CHAP secret: unexpected ':' inside the base64 key");
        }
        byte[] decoded;
        try {
            decoded = Base64.getDecoder().decode(body);
        } catch (IllegalArgumentException e) {
            throw new InvalidDhchapSecretException("DH-HMAC-CHAP secret: key is not valid base64");
        }
        try {
            int keyLength = decoded.length - 4;
            if (keyLength != 32 && keyLength != 48 && keyLength != 64) {
                throw new InvalidDhchapSecretException("DH-HMAC-CHAP secret: decoded key is " + decoded.length
                        + " bytes; expected 36, 52 or 68 (a 32, 48 or 64-byte key and its CRC-32)");
            }
            byte[] key = Arrays.copyOf(decoded, keyLength);
            int stored = (decoded[keyLength] & 0xFF) | (decoded[keyLength + 1] & 0xFF) << 8
                    | (decoded[keyLength + 2] & 0xFF) << 16 | (decoded[keyLength + 3] & 0xFF) << 24;
            if (stored != crc32(key)) {
                Arrays.fill(key, (byte) 0);
                throw new InvalidDhchapSecretException(
                        "DH-HMAC-CHAP secret: CRC-32 mismatch (the key was mistyped or truncated)");
            }
            return new DhchapSecret(hashId, key);
        } finally {
            Arrays.fill(decoded, (byte) 0);
        }
    }

    /**
     * A new random secret, as {@code nvme gen-dhchap-key --hmac=hmacId --key-length=keyLength} makes one.
     *
     * @param hmacId    0 (no transformation) or 1 to 3 ({@link DhchapHash#id()})
     * @param keyLength 32, 48 or 64; with a hash named it must be that hash's length (nvme-cli's rule)
     */
    public static DhchapSecret generate(int hmacId, int keyLength, SecureRandom random) {
        checkHashId(hmacId);
        checkKeyLength(keyLength);
        checkGenerateLength(hmacId, keyLength);
        byte[] key = new byte[keyLength];
        random.nextBytes(key);
        return new DhchapSecret(hmacId, key);
    }

    /**
     * The secret {@code nvme gen-dhchap-key --secret=<hex> --hmac=hmacId --nqn=nqn} prints: libnvme's
     * {@code nvme_gen_dhchap_key()} stores the given secret already transformed with the NQN when a hash is named
     * (and as is for hash 0). Random keys made by {@link #generate} are indistinguishable from such output.
     */
    public static DhchapSecret nvmeCliSecret(int hmacId, byte[] rawSecret, String nqn) {
        checkHashId(hmacId);
        checkKeyLength(rawSecret.length);
        checkGenerateLength(hmacId, rawSecret.length);
        if (hmacId == 0) {
            return new DhchapSecret(0, rawSecret.clone());
        }
        return new DhchapSecret(hmacId, transformKey(DhchapHash.fromId(hmacId).orElseThrow(), rawSecret, nqn));
    }

    /** The standard representation {@code DHHC-1:hh:<base64>:}; contains the key, never log it. */
    public String format() {
        byte[] withCrc = Arrays.copyOf(key, key.length + 4);
        int crc = crc32(key);
        withCrc[key.length] = (byte) crc;
        withCrc[key.length + 1] = (byte) (crc >>> 8);
        withCrc[key.length + 2] = (byte) (crc >>> 16);
        withCrc[key.length + 3] = (byte) (crc >>> 24);
        String s = PREFIX + String.format("%02x", hashId) + ":" + Base64.getEncoder().encodeToString(withCrc) + ":";
        Arrays.fill(withCrc, (byte) 0);
        return s;
    }

    /** The {@code hh} field: 0 for an untransformed key, otherwise the {@link DhchapHash} id. */
    public int hashId() {
        return hashId;
    }

    /** The hash of the transformation, empty for {@code hh} 00. */
    public Optional<DhchapHash> transformHash() {
        return hashId == 0 ? Optional.empty() : DhchapHash.fromId(hashId);
    }

    /** Length of the key in bytes: 32, 48 or 64. */
    public int keyLength() {
        return key.length;
    }

    /** A copy of the raw key (before transformation). */
    public byte[] key() {
        return key.clone();
    }

    /**
     * The key as used for the HMAC of a response (NVMe Base 2.0, 8.13.5.7; Linux {@code nvme_auth_transform_key()}):
     * the key itself for {@code hh} 00, otherwise HMAC-hash(key, nqn || "NVMe-over-Fabrics") with the hash named by
     * {@code hh}. The host key is transformed with the host NQN, the controller key with the subsystem NQN.
     */
    public byte[] transform(String nqn) {
        if (hashId == 0) {
            return key.clone();
        }
        byte[] t = transformKey(DhchapHash.fromId(hashId).orElseThrow(), key, nqn);
        // Linux keeps the transformed key in a buffer of the original key's length and keys the HMAC with that
        // many bytes (nvme_auth_alloc_key(key->len), crypto_shash_setkey(.., key->len)): a longer digest is cut, a
        // shorter one zero-padded (which HMAC's own padding makes equivalent). Only keys whose length differs from
        // their hash's, which nvme-cli never makes, see the difference.
        return t.length == key.length ? t : Arrays.copyOf(t, key.length);
    }

    /** HMAC-{@code hash}(key, nqn || "NVMe-over-Fabrics"): the transformation of 8.13.5.7. */
    public static byte[] transformKey(DhchapHash hash, byte[] key, String nqn) {
        Mac mac = hash.hmac(key);
        mac.update(nqn.getBytes(StandardCharsets.UTF_8));
        mac.update(TRANSFORM_SUFFIX);
        return mac.doFinal();
    }

    private static int crc32(byte[] key) {
        CRC32 crc = new CRC32();
        crc.update(key);
        return (int) crc.getValue();
    }

    private static void checkHashId(int hashId) {
        if (hashId < 0 || hashId > 3) {
            throw new InvalidDhchapSecretException("DH-HMAC-CHAP secret: hash identifier " + hashId
                    + " unknown; expected 00 (none), 01 (SHA-256), 02 (SHA-384) or 03 (SHA-512)");
        }
    }

    private static void checkKeyLength(int length) {
        if (length != 32 && length != 48 && length != 64) {
            throw new InvalidDhchapSecretException(
                    "DH-HMAC-CHAP secret: key length " + length + " invalid; expected 32, 48 or 64 bytes");
        }
    }

    private static void checkGenerateLength(int hmacId, int keyLength) {
        if (hmacId != 0) {
            DhchapHash h = DhchapHash.fromId(hmacId).orElseThrow();
            if (h.length() != keyLength) {
                throw new InvalidDhchapSecretException("DH-HMAC-CHAP secret: key length " + keyLength
                        + " invalid for " + h + "; it takes " + h.length() + " bytes");
            }
        }
    }

    /** Constant-time comparison of hash identifier and key. */
    @Override
    public boolean equals(Object o) {
        return o instanceof DhchapSecret other && hashId == other.hashId && MessageDigest.isEqual(key, other.key);
    }

    @Override
    public int hashCode() {
        return hashId * 31 + key.length;
    }

    /** Never the key: the form and length only. */
    @Override
    public String toString() {
        return "DhchapSecret[DHHC-1:" + String.format("%02x", hashId) + ", " + key.length + "-byte key]";
    }
}
