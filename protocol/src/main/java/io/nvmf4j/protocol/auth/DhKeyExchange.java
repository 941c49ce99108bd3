package io.nvmf4j.protocol.auth;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PublicKey;
import java.security.SecureRandom;
import javax.crypto.KeyAgreement;
import javax.crypto.interfaces.DHPublicKey;
import javax.crypto.spec.DHParameterSpec;
import javax.crypto.spec.DHPublicKeySpec;

/**
 * One side's ephemeral Diffie-Hellman key in an FFDHE group for one DH-HMAC-CHAP transaction (NVMe Base 2.0,
 * 8.13.5.2: the controller sends g^x in the Challenge, the host g^y in the Reply, both derive g^xy). Values on the
 * wire are big-endian and exactly {@link DhchapDhGroup#valueLength()} bytes, as Linux {@code nvme_auth_gen_pubkey()}
 * and {@code nvme_auth_gen_shared_secret()} produce them (kpp output padded to the prime size). The JDK does the
 * arithmetic; {@link BigInteger} only converts to and from bytes.
 */
public final class DhKeyExchange {

    private final DhchapDhGroup group;
    private final KeyPair keyPair;

    private DhKeyExchange(DhchapDhGroup group, KeyPair keyPair) {
        this.group = group;
        this.keyPair = keyPair;
    }

    /** A fresh ephemeral key pair in {@code group} (not {@link DhchapDhGroup#NULL}). */
    public static DhKeyExchange generate(DhchapDhGroup group, SecureRandom random) {
        DHParameterSpec spec = FfdheGroups.parameters(group);
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("DH");
            generator.initialize(spec, random);
            return new DhKeyExchange(group, generator.generateKeyPair());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("JDK DH key generation failed for " + group, e);
        }
    }

    public DhchapDhGroup group() {
        return group;
    }

    /** This side's public value g^x, big-endian, {@link DhchapDhGroup#valueLength()} bytes. */
    public byte[] publicValue() {
        return toFixed(((DHPublicKey) keyPair.getPublic()).getY(), group.valueLength());
    }

    /**
     * The shared secret g^xy from the peer's public value, {@link DhchapDhGroup#valueLength()} bytes.
     *
     * @throws InvalidDhValueException when the peer's value has the wrong length or is not in the group's
     *                                 range (1 &lt; y &lt; p-1, the check of Linux {@code dh_is_pubkey_valid()})
     */
    public byte[] sharedSecret(byte[] peerPublicValue) throws InvalidDhValueException {
        if (peerPublicValue.length != group.valueLength()) {
            throw new InvalidDhValueException("DH value is " + peerPublicValue.length + " bytes; " + group
                    + " takes " + group.valueLength());
        }
        DHParameterSpec spec = FfdheGroups.parameters(group);
        BigInteger y = new BigInteger(1, peerPublicValue);
        BigInteger pMinusOne = spec.getP().subtract(BigInteger.ONE);
        if (y.compareTo(BigInteger.ONE) <= 0 || y.compareTo(pMinusOne) >= 0) {
            throw new InvalidDhValueException("DH value out of range for " + group);
        }
        try {
            PublicKey peer = KeyFactory.getInstance("DH")
                    .generatePublic(new DHPublicKeySpec(y, spec.getP(), spec.getG()));
            KeyAgreement agreement = KeyAgreement.getInstance("DH");
            agreement.init(keyPair.getPrivate());
            agreement.doPhase(peer, true);
            byte[] secret = agreement.generateSecret();
            if (secret.length == group.valueLength()) {
                return secret;
            }
            return toFixed(new BigInteger(1, secret), group.valueLength());
        } catch (GeneralSecurityException e) {
            throw new InvalidDhValueException("DH value rejected for " + group + ": " + e.getMessage());
        }
    }

    private static byte[] toFixed(BigInteger value, int length) {
        byte[] raw = value.toByteArray();
        byte[] out = new byte[length];
        int copy = Math.min(raw.length, length);
        System.arraycopy(raw, raw.length - copy, out, length - copy, copy);
        return out;
    }

    /** A peer's DH value that cannot be used. */
    public static final class InvalidDhValueException extends Exception {
        private static final long serialVersionUID = 1L;

        public InvalidDhValueException(String message) {
            super(message);
        }
    }
}
