package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.softiwarp.mpa.MpaException;
import io.nvmf4j.verbs.softiwarp.mpa.MpaFrame;
import io.nvmf4j.verbs.softiwarp.mpa.MpaNegotiation;
import io.nvmf4j.verbs.softiwarp.mpa.MpaV2IrdOrd;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** MPA request/reply frames against bytes the Linux kernel sent (interop lab) and RFC 5044/6581 layouts. */
class MpaFrameVectorTest {
    /** The first 56 bytes a guest kernel nvme-rdma host over siw sent to a plain listener (interop/). */
    static final String KERNEL_NVME_REQUEST = "4d504120494420526571204672616d65" // "MPA ID Req Frame"
            + "10 02 0024" // flags H, revision 2, pd length 36
            + "0080 0000" // RFC 6581 IRD 128, ORD 0, no P2P
            + "0000 0000 2000 1f00" + "00".repeat(24); // NVMe-oF RDMA CM request: recfmt 0, qid 0, hrqsize 32, hsqsize 31

    @Test
    void decodesTheRequestTheKernelHostSent() throws MpaException {
        MpaFrame f = MpaFrame.decode(Hex.bytes(KERNEL_NVME_REQUEST));
        assertFalse(f.reply());
        assertTrue(f.enhanced());
        assertFalse(f.crc());
        assertFalse(f.markers());
        assertFalse(f.reject());
        assertEquals(2, f.revision());
        assertEquals(36, f.privateData().length);
        MpaV2IrdOrd words = MpaV2IrdOrd.decode(f.privateData());
        assertEquals(128, words.ird());
        assertEquals(0, words.ord());
        assertFalse(words.peerToPeer());
        MpaNegotiation.Request r = MpaNegotiation.judgeRequest(f, false);
        assertArrayEquals(Hex.bytes("0000 0000 2000 1f00" + "00".repeat(24)), r.privateData());
        assertEquals(128, r.peerIrd());
        assertEquals(0, r.peerOrd());
        assertFalse(r.crc());
    }

    @Test
    void replyToTheKernelRequestMatchesWhatSiwWouldSend() throws MpaException {
        MpaNegotiation.Request r = MpaNegotiation.judgeRequest(MpaFrame.decode(Hex.bytes(KERNEL_NVME_REQUEST)), false);
        // nvmet asks for ird 16 / ord 16; relaxed negotiation caps our ORD at the host's IRD (128) and keeps IRD
        int[] irdOrd = MpaNegotiation.acceptedIrdOrd(r, 16, 16, 128, 128);
        assertArrayEquals(new int[] {16, 16}, irdOrd);
        byte[] reply = MpaNegotiation.reply(r, irdOrd[0], irdOrd[1], Hex.bytes("0000 2000 0000 0000" + "00".repeat(24)))
                .encode();
        assertEquals("4d504120494420526570204672616d65" + "10020024" + "00100010" + "0000200000000000" + "00".repeat(24),
                Hex.of(reply));
    }

    @Test
    void peerToPeerRequestGetsWriteRtrAsTheLabSaw() throws MpaException {
        // a request with P2P and both RTR kinds offered: siw_proc_mpareq prefers the zero-length Write
        byte[] req = Hex.bytes("4d504120494420526571204672616d65" + "10020004" + "8010c010");
        MpaNegotiation.Request r = MpaNegotiation.judgeRequest(MpaFrame.decode(req), false);
        assertTrue(r.peerToPeer());
        assertTrue(r.rtrWrite());
        byte[] reply = MpaNegotiation.reply(r, 16, 16, new byte[0]).encode();
        // interop lab: the guest's nvmet-rdma over siw answered with IRD/ORD words 8010 8010
        assertEquals("4d504120494420526570204672616d65" + "10020004" + "80108010", Hex.of(reply));
    }

    @Test
    void ourRequestIsRevisionTwoEnhancedWithoutCrcOrPeerToPeerLikeSiwDefaults() {
        byte[] pd = Hex.bytes("0102030405");
        MpaFrame f = MpaNegotiation.request(16, 8, false, false, pd);
        assertEquals("4d504120494420526571204672616d65" + "10020009" + "00100008" + "0102030405", Hex.of(f.encode()));
    }

    @Test
    void markersAreRejectedWithTheRejectBitAndWithoutMarkers() throws MpaException {
        MpaFrame req = MpaFrame.decode(Hex.bytes("4d504120494420526571204672616d65" + "90020004" + "00100010"));
        assertThrows(MpaException.class, () -> MpaNegotiation.judgeRequest(req, false));
        byte[] reject = MpaNegotiation.rejectFor(req).encode();
        assertEquals("4d504120494420526570204672616d65" + "30020004" + "00000000", Hex.of(reject));
    }

    @Test
    void crcRequestedByThePeerIsHonoured() throws MpaException {
        MpaFrame req = MpaFrame.decode(Hex.bytes("4d504120494420526571204672616d65" + "50020004" + "00100010"));
        MpaNegotiation.Request r = MpaNegotiation.judgeRequest(req, false);
        assertTrue(r.crc());
        assertTrue(MpaNegotiation.reply(r, 16, 16, new byte[0]).crc());
    }

    @Test
    void privateDataLongerThan512AndUnknownKeysAreRefused() {
        assertThrows(MpaException.class, () -> MpaFrame.privateDataLength(
                Hex.bytes("4d504120494420526571204672616d65" + "10020201")));
        assertThrows(MpaException.class, () -> MpaFrame.decode(
                Hex.bytes("4d504120494420526571204672616d66" + "10020000")));
        assertThrows(MpaException.class, () -> MpaNegotiation.judgeRequest(MpaFrame.decode(
                Hex.bytes("4d504120494420526571204672616d65" + "10020002" + "0000")), false));
    }

    @Test
    void rejectReplyHandsBackTheApplicationDataWithoutIrdOrd() throws MpaException {
        MpaFrame request = MpaNegotiation.request(4, 4, false, false, new byte[0]);
        MpaFrame rej = MpaFrame.decode(Hex.bytes("4d504120494420526570204672616d65" + "30020008" + "00000000"
                + "0600 0000"));
        MpaNegotiation.Rejected e = assertThrows(MpaNegotiation.Rejected.class,
                () -> MpaNegotiation.judgeReply(rej, request, 128));
        assertArrayEquals(Hex.bytes("06000000"), e.privateData());
    }
}
