package io.nvmf4j.protocol.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.nvmf4j.protocol.Hex;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Known answers computed with Python's hmac/hashlib from the byte sequence of Linux nvmet_auth_host_hash() /
 * nvmet_auth_ctrl_hash() (challenge, le32 seqnum, le16 tid, 00h, "HostHost"/"Controller", NQN, 00h, NQN) and
 * nvme_auth_augmented_challenge() (HMAC keyed with the digest of the session key).
 */
class DhchapResponsesTest {

    static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:host";
    static final String SUB = "nqn.2024-01.io.nvmf4j:sub";

    static byte[] range(int from, int count) {
        byte[] b = new byte[count];
        for (int i = 0; i < count; i++) {
            b[i] = (byte) (from + i);
        }
        return b;
    }

    @Test
    void hostResponseSha256() {
        assertEquals("72c7af769f7804ea60d978fd4409ae5b024cd572fe98987da1399f4e2967416f", Hex.of(
                DhchapResponses.hostResponse(DhchapHash.SHA256, range(0, 32), range(100, 32), 0x01020304, 0x0506,
                        HOST, SUB)));
    }

    @Test
    void controllerResponseSwapsTheNqnsAndSaysController() {
        assertEquals("1a1f6de8932c66c18dedfd6884a716f58504d72c2285bb05398dc5abe255bf17", Hex.of(
                DhchapResponses.controllerResponse(DhchapHash.SHA256, range(0, 32), range(100, 32), 0x0a0b0c0d,
                        0x0506, HOST, SUB)));
    }

    @Test
    void augmentedChallengeIsHmacKeyedWithTheHashedSessionKey() {
        byte[] skey = new byte[256];
        Arrays.fill(skey, (byte) 0xAA);
        byte[] aug = DhchapResponses.augmentedChallenge(DhchapHash.SHA256, skey, range(100, 32));
        assertEquals("3aad2e1288e393833a00d12eda056e58a1ee04e7cb8dfbfb2c7a7f357eb78d7d", Hex.of(aug));
        assertEquals("f6ad6cf66e2c7ef0fca2c3226d92667b2e737b297706c5c300428935919f3812", Hex.of(
                DhchapResponses.hostResponse(DhchapHash.SHA256, range(0, 32), aug, 0x01020304, 0x0506, HOST, SUB)));
        assertEquals(Hex.of(range(100, 32)),
                Hex.of(DhchapResponses.augmentedChallenge(DhchapHash.SHA256, null, range(100, 32))));
    }

    @Test
    void hostResponseSha512() {
        assertEquals("e1e4352c19032e18e065a19f4f3eefd7d337e1fad3406bba825ecaa9750b7445"
                + "1f823701d43bdc6661a8257603baa75c323ce7790b5f6627d2ecd55c6d7c592a", Hex.of(
                DhchapResponses.hostResponse(DhchapHash.SHA512, range(0, 64), range(0, 64), 7, 1, HOST, SUB)));
    }
}
