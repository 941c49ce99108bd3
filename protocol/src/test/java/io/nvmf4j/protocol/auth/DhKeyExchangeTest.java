package io.nvmf4j.protocol.auth;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigInteger;
import java.security.SecureRandom;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class DhKeyExchangeTest {

    @Test
    void bothSidesDeriveTheSameFixedLengthSecretInEveryGroup() throws Exception {
        SecureRandom r = new SecureRandom();
        for (DhchapDhGroup g : DhchapDhGroup.values()) {
            if (g.isNull()) {
                continue;
            }
            DhKeyExchange a = DhKeyExchange.generate(g, r);
            DhKeyExchange b = DhKeyExchange.generate(g, r);
            assertEquals(g.valueLength(), a.publicValue().length);
            byte[] s1 = a.sharedSecret(b.publicValue());
            assertEquals(g.valueLength(), s1.length);
            assertArrayEquals(s1, b.sharedSecret(a.publicValue()));
        }
    }

    @Test
    void primesAreRfc7919() throws Exception {
        // RFC 7919 appendix A: p = 2^b - 2^(b-64) + {[2^(b-130) e] + X} * 2^64 - 1, so the top and bottom 64 bits are
        // all ones; the last bytes of ffdhe2048 are compared with the RFC's listing.
        for (DhchapDhGroup g : DhchapDhGroup.values()) {
            if (g.isNull()) {
                continue;
            }
            BigInteger p = FfdheGroups.parameters(g).getP();
            assertEquals(g.bits(), p.bitLength());
            BigInteger mask = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);
            assertEquals(mask, p.and(mask));
            assertEquals(mask, p.shiftRight(g.bits() - 64));
            assertEquals(BigInteger.TWO, FfdheGroups.parameters(g).getG());
        }
        byte[] p2048 = FfdheGroups.parameters(DhchapDhGroup.FFDHE2048).getP().toByteArray();
        String tail = HexFormat.of().formatHex(p2048, p2048.length - 16, p2048.length);
        assertEquals("886b423861285c97ffffffffffffffff", tail);
    }

    @Test
    void rejectsDegenerateAndWrongLengthPeerValues() {
        DhKeyExchange a = DhKeyExchange.generate(DhchapDhGroup.FFDHE2048, new SecureRandom());
        assertThrows(DhKeyExchange.InvalidDhValueException.class, () -> a.sharedSecret(new byte[256]));
        byte[] one = new byte[256];
        one[255] = 1;
        assertThrows(DhKeyExchange.InvalidDhValueException.class, () -> a.sharedSecret(one));
        byte[] all = new byte[256];
        java.util.Arrays.fill(all, (byte) 0xFF);
        assertThrows(DhKeyExchange.InvalidDhValueException.class, () -> a.sharedSecret(all));
        assertThrows(DhKeyExchange.InvalidDhValueException.class, () -> a.sharedSecret(new byte[255]));
    }
}
