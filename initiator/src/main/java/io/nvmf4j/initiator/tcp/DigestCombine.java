package io.nvmf4j.initiator.tcp;

/**
 * Joins the CRC32C digests of two runs of bytes into the digest of the two back to back, so that data that arrives
 * or leaves in several pieces is digested piece by piece with the one {@link io.nvmf4j.protocol.tcp.PduDigest}
 * both sides use: crc(A B) = crc(A) times x^(8 |B|) mod P, plus crc(B) (zlib's {@code crc32_combine()}), in the
 * reflected bit order of CRC32C (RFC 3720 B.4). Allocation-free.
 */
final class DigestCombine {

    /** CRC32C's polynomial, reflected (Castagnoli, 1EDC6F41h). */
    private static final int POLY = 0x82F6_3B78;
    /** x^(2^n) mod P, for n = 0..31 (x^1 is bit 30 in the reflected order). */
    private static final int[] X_2N = new int[32];

    static {
        int p = 1 << 30;
        X_2N[0] = p;
        for (int n = 1; n < X_2N.length; n++) {
            X_2N[n] = p = multiply(p, p);
        }
    }

    private DigestCombine() {
    }

    /** The digest of A then B, from A's digest, B's digest and B's length in bytes. */
    static int combine(int digestA, int digestB, long lengthB) {
        return multiply(xPower8n(lengthB), digestA) ^ digestB;
    }

    /** a times b modulo P (zlib {@code multmodp()}); {@code a} is never 0 here (a power of x). */
    private static int multiply(int a, int b) {
        int m = 1 << 31;
        int p = 0;
        while (true) {
            if ((a & m) != 0) {
                p ^= b;
                if ((a & (m - 1)) == 0) {
                    return p;
                }
            }
            m >>>= 1;
            b = (b & 1) != 0 ? (b >>> 1) ^ POLY : b >>> 1;
        }
    }

    /** x^(8 n) mod P (zlib {@code x2nmodp(n, 3)}). */
    private static int xPower8n(long n) {
        int p = 1 << 31; // x^0
        int k = 3;
        for (long left = n; left != 0; left >>>= 1, k++) {
            if ((left & 1) != 0) {
                p = multiply(X_2N[k & 31], p);
            }
        }
        return p;
    }
}
