package io.nvmf4j.protocol.auth;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.Hex;
import java.security.SecureRandom;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * Known answers computed outside Java (Python's base64, zlib.crc32 and hmac, which follow the same definitions
 * as nvme-cli's {@code base64_encode}/{@code crc32} and the kernel's {@code nvme_auth_transform_key()}): key bytes
 * 00 01 02 ..., host NQN below.
 */
class DhchapSecretTest {

    static final String NQN = "nqn.2014-08.org.nvmexpress:uuid:12345678-1234-1234-1234-123456789abc";

    static byte[] counting(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) i;
        }
        return b;
    }

    @Test
    void untransformed32ByteKeyRoundTrips() {
        String text = "DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:";
        DhchapSecret s = DhchapSecret.parse(text);
        assertEquals(0, s.hashId());
        assertTrue(s.transformHash().isEmpty());
        assertArrayEquals(counting(32), s.key());
        assertEquals(text, s.format());
        assertArrayEquals(counting(32), s.transform(NQN));
        assertEquals(text, DhchapSecret.of(0, counting(32)).format());
    }

    @Test
    void sha256TransformMatchesKnownAnswer() {
        DhchapSecret s = DhchapSecret.parse("DHHC-1:01:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:");
        assertEquals(DhchapHash.SHA256, s.transformHash().orElseThrow());
        assertEquals("be9ab7edfb82ddd5e5ac574178bde5e79ad95f97eb94f2c02fa5e2594701b362", Hex.of(s.transform(NQN)));
    }

    @Test
    void sha384TransformMatchesKnownAnswer() {
        String text = "DHHC-1:02:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vcSEgBQ==:";
        DhchapSecret s = DhchapSecret.parse(text);
        assertEquals(48, s.keyLength());
        assertEquals(text, s.format());
        assertEquals("370ab17f1c0542144d83c9dc410dbae3986ddf09de0a35ee25a5ff57db4b5adf"
                + "4021c491a64fa1ea691858a9f2fdd16c", Hex.of(s.transform(NQN)));
    }

    @Test
    void sha512TransformMatchesKnownAnswer() {
        String text = "DHHC-1:03:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4OTo7PD0+P4zODhA=:";
        DhchapSecret s = DhchapSecret.parse(text);
        assertEquals(text, s.format());
        assertEquals("7379607f30f91d9dbd5e6ae8f761191e17e5bb142a979fce7f7dd7061e20f8b9"
                + "a4b376dcb629a62ae38227d175aa11eea6978d3aec434aa4629a5e856c728d5c", Hex.of(s.transform(NQN)));
    }

    @Test
    void nvmeCliSecretStoresTheTransformedKey() {
        // libnvme nvme_gen_dhchap_key(): --secret with --hmac=1 prints HMAC-SHA-256(secret, nqn || "NVMe-over-Fabrics")
        DhchapSecret s = DhchapSecret.nvmeCliSecret(1, counting(32), NQN);
        assertEquals(1, s.hashId());
        assertEquals("be9ab7edfb82ddd5e5ac574178bde5e79ad95f97eb94f2c02fa5e2594701b362", Hex.of(s.key()));
        assertArrayEquals(counting(32), DhchapSecret.nvmeCliSecret(0, counting(32), NQN).key());
    }

    @Test
    void acceptsTrailingNewlineAndMissingFinalColonAsLinuxDoes() {
        DhchapSecret a = DhchapSecret.parse("DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:\n");
        DhchapSecret b = DhchapSecret.parse("DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR");
        assertEquals(a, b);
    }

    @Test
    void anyKeyLengthWithAnyHashWhenParsingLikeTheKernel() {
        DhchapSecret s = DhchapSecret.parse(DhchapSecret.of(1, counting(64)).format());
        assertEquals(64, s.keyLength());
        // Linux keys the HMAC with key->len bytes of the transformed key buffer: digest, then zeros
        byte[] t = s.transform(NQN);
        assertEquals(64, t.length);
        assertArrayEquals(new byte[32], java.util.Arrays.copyOfRange(t, 32, 64));
        DhchapSecret shortKey = DhchapSecret.of(3, counting(32));
        assertEquals(32, shortKey.transform(NQN).length);
    }

    @Test
    void badInputNamesWhatIsWrongWithoutQuotingTheSecret() {
        String good = "DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:";
        assertMessage("must start with", "DHHC-2:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:");
        assertMessage("hash identifier 4 unknown", good.replace(":00:", ":04:"));
        assertMessage("not two hex digits", good.replace(":00:", ":zz:"));
        assertMessage("two-digit hash identifier", "DHHC-1:0:AAAA:");
        assertMessage("CRC-32 mismatch", good.replace("AAEC", "AQEC"));
        assertMessage("not valid base64", good.replace("AAEC", "A*EC"));
        assertMessage("decoded key is 3 bytes", "DHHC-1:00:AAAA:");
        assertMessage("unexpected ':'", "DHHC-1:00:AAAA:BBBB:");
        assertMessage("missing", null);
        InvalidDhchapSecretException e = assertThrows(InvalidDhchapSecretException.class,
                () -> DhchapSecret.parse(good.replace("AAEC", "AQEC")));
        assertFalse(e.getMessage().contains("AQEC"));
    }

    private static void assertMessage(String expected, String input) {
        InvalidDhchapSecretException e = assertThrows(InvalidDhchapSecretException.class,
                () -> DhchapSecret.parse(input));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    @Test
    void generateFollowsNvmeCliLengthRules() {
        SecureRandom r = new SecureRandom();
        for (int hmac = 0; hmac <= 3; hmac++) {
            int len = hmac == 0 ? 48 : DhchapHash.fromId(hmac).orElseThrow().length();
            DhchapSecret s = DhchapSecret.generate(hmac, len, r);
            assertEquals(s, DhchapSecret.parse(s.format()));
            assertEquals(len, s.keyLength());
        }
        assertThrows(InvalidDhchapSecretException.class, () -> DhchapSecret.generate(1, 48, r));
        assertThrows(InvalidDhchapSecretException.class, () -> DhchapSecret.generate(0, 40, r));
        assertThrows(InvalidDhchapSecretException.class, () -> DhchapSecret.generate(4, 32, r));
    }

    @Test
    void toStringNeverShowsTheKey() {
        DhchapSecret s = DhchapSecret.of(0, counting(32));
        assertFalse(s.toString().contains("AAEC"));
        assertFalse(s.toString().contains(HexFormat.of().formatHex(counting(4))));
    }

    @Test
    void hashAndGroupNamesAndIds() {
        assertEquals(DhchapHash.SHA384, DhchapHash.fromName("hmac(sha384)").orElseThrow());
        assertEquals(DhchapHash.SHA512, DhchapHash.fromName("SHA-512").orElseThrow());
        assertEquals("hmac(sha256)", DhchapHash.SHA256.nvmetcliName());
        assertEquals(2, DhchapHash.SHA384.id());
        assertTrue(DhchapHash.fromName("hmac(md5)").isEmpty());
        assertEquals(DhchapDhGroup.FFDHE8192, DhchapDhGroup.fromName("ffdhe8192").orElseThrow());
        assertEquals(DhchapDhGroup.NULL, DhchapDhGroup.fromName("null").orElseThrow());
        assertEquals(5, DhchapDhGroup.FFDHE8192.id());
        assertEquals(1, DhchapDhGroup.FFDHE2048.id());
        assertEquals(DhchapDhGroup.FFDHE3072, DhchapDhGroup.fromId(2).orElseThrow());
        assertTrue(DhchapDhGroup.fromId(6).isEmpty());
        assertEquals(256, DhchapDhGroup.FFDHE2048.valueLength());
    }
}
