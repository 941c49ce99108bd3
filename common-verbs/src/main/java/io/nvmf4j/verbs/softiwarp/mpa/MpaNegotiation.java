package io.nvmf4j.verbs.softiwarp.mpa;

import java.util.Arrays;

/**
 * The connection setup decisions of Linux siw (siw_cm.c), as pure functions so they can be tested byte for byte:
 * what the initiator requests (siw_connect), how a responder judges a request (siw_proc_mpareq) and builds its
 * reply (siw_accept) or reject (siw_reject), and how the initiator judges the reply (siw_proc_mpareply). siw's
 * defaults: MPA revision 2 with enhanced connection setup, CRC not required and not strict, no peer-to-peer
 * mode, relaxed IRD negotiation.
 */
public final class MpaNegotiation {
    private MpaNegotiation() {
    }

    /** siw_connect(): revision 2, H flag, IRD/ORD words, optional CRC and peer-to-peer (write RTR only). */
    public static MpaFrame request(int ird, int ord, boolean crcRequired, boolean peerToPeer, byte[] privateData) {
        if (peerToPeer && ord == 0) {
            ord = 1; // siw_connect: "if (p2p_mode && cep->ord == 0) cep->ord = 1"
        }
        MpaV2IrdOrd words = new MpaV2IrdOrd(ird, ord, peerToPeer, false, peerToPeer, false);
        return new MpaFrame(false, false, crcRequired, false, true, false, 2, withWords(words, privateData));
    }

    /** The private data with the 4 IRD/ORD bytes in front. */
    public static byte[] withWords(MpaV2IrdOrd words, byte[] privateData) {
        byte[] pd = new byte[MpaV2IrdOrd.LENGTH + privateData.length];
        words.encode(pd, 0);
        System.arraycopy(privateData, 0, pd, MpaV2IrdOrd.LENGTH, privateData.length);
        return pd;
    }

    /** The application's private data: without the IRD/ORD words when the frame is enhanced (siw_cm_upcall). */
    public static byte[] applicationData(MpaFrame frame) {
        byte[] pd = frame.privateData();
        if (frame.revision() == 2 && frame.enhanced() && pd.length >= MpaV2IrdOrd.LENGTH) {
            return Arrays.copyOfRange(pd, MpaV2IrdOrd.LENGTH, pd.length);
        }
        return pd;
    }

    /**
     * What a responder learnt from a valid request.
     *
     * @param enhanced     RFC 6581 enhanced setup in use
     * @param crc          CRC on this connection (the peer asked, or we require it)
     * @param peerIrd      the peer's IRD (-1 if not enhanced)
     * @param peerOrd      the peer's ORD (-1 if not enhanced)
     * @param peerToPeer   the peer asked for an RTR message
     * @param rtrWrite     the RTR will be a zero-length Write (else Read) when peerToPeer
     * @param revision     the request's revision (echoed in the reply)
     * @param privateData  the application's private data
     */
    public record Request(boolean enhanced, boolean crc, int peerIrd, int peerOrd, boolean peerToPeer,
                          boolean rtrWrite, int revision, byte[] privateData) {
    }

    /**
     * siw_proc_mpareq(): judges a request.
     *
     * @throws MpaException when siw would reject (markers; enhanced frame without IRD/ORD; a reply key; revision
     *                      above 2): the caller sends {@link #rejectFor(MpaFrame)} where siw does
     */
    public static Request judgeRequest(MpaFrame req, boolean crcRequired) throws MpaException {
        if (req.reply()) {
            throw new MpaException("expected an MPA request, got a reply key");
        }
        if (req.revision() > 2) {
            throw new MpaException("MPA revision " + req.revision() + " (siw allows 0, 1 and 2)");
        }
        boolean enhanced = req.revision() == 2 && req.enhanced();
        if (enhanced && req.privateData().length < MpaV2IrdOrd.LENGTH) {
            throw new MpaException("MPA v2 enhanced request without IRD/ORD words");
        }
        if (req.markers()) {
            throw new MpaException("MPA markers requested: not supported (as siw)");
        }
        boolean crc = req.crc() || crcRequired;
        if (!enhanced) {
            return new Request(false, crc, -1, -1, false, false, req.revision(), req.privateData());
        }
        MpaV2IrdOrd words = MpaV2IrdOrd.decode(req.privateData());
        boolean rtrWrite = words.writeRtr() || !words.readRtr();
        return new Request(true, crc, words.ird(), words.ord(), words.peerToPeer(), rtrWrite, req.revision(),
                applicationData(req));
    }

    /** The reject siw sends from siw_proc_mpareq's reject path: request bits, M cleared, R set, no private data. */
    public static MpaFrame rejectFor(MpaFrame req) {
        byte[] pd = new byte[0];
        boolean enhanced = req.revision() == 2 && req.enhanced();
        if (enhanced) {
            // siw_send_mpareqrep appends its v2_ctrl words when enhanced_rdma_conn_est is set
            pd = withWords(MpaV2IrdOrd.of(0, 0), pd);
        }
        return new MpaFrame(true, false, req.crc(), true, req.enhanced(), false, Math.min(req.revision(), 2), pd);
    }

    /** siw_reject(): a reject carrying the application's private data. */
    public static MpaFrame reject(Request req, byte[] privateData) {
        byte[] pd = req.enhanced() ? withWords(MpaV2IrdOrd.of(0, 0), privateData) : privateData;
        return new MpaFrame(true, false, req.crc(), true, req.enhanced(), false, req.revision(), pd);
    }

    /**
     * siw_accept() with relaxed IRD negotiation: our ORD is capped by the peer's IRD, our IRD raised to the peer's
     * ORD (up to {@code maxIrd}).
     *
     * @return {ird, ord} for the queue pair
     */
    public static int[] acceptedIrdOrd(Request req, int ird, int ord, int maxIrd, int maxOrd) {
        if (!req.enhanced()) {
            return new int[] {ird, ord};
        }
        int cepOrd = Math.min(req.peerIrd(), maxOrd);
        int cepIrd = Math.min(req.peerOrd(), maxIrd);
        if (ord > cepOrd) {
            ord = cepOrd;
        }
        if (ird < cepIrd) {
            ird = cepIrd;
        }
        return new int[] {ird, ord};
    }

    /** siw_accept(): the reply with the negotiated IRD/ORD and, for a peer-to-peer request, the chosen RTR. */
    public static MpaFrame reply(Request req, int ird, int ord, byte[] privateData) {
        byte[] pd = privateData;
        if (req.enhanced()) {
            MpaV2IrdOrd words = new MpaV2IrdOrd(ird, ord, req.peerToPeer(), false,
                    req.peerToPeer() && req.rtrWrite(), req.peerToPeer() && !req.rtrWrite());
            pd = withWords(words, privateData);
        }
        return new MpaFrame(true, false, req.crc(), false, req.enhanced(), false, req.revision(), pd);
    }

    /**
     * What an initiator learnt from a valid reply.
     *
     * @param crc         CRC on this connection
     * @param ird         our IRD (the responder's ORD)
     * @param ord         our ORD (the responder's IRD)
     * @param sendRtr     we must send a zero-length RDMA Write as RTR
     * @param privateData the application's private data
     */
    public record Reply(boolean crc, int ird, int ord, boolean sendRtr, byte[] privateData) {
    }

    /** A reply that rejects the connection. */
    public static final class Rejected extends Exception {
        private static final long serialVersionUID = 1L;
        private final byte[] privateData;

        public Rejected(byte[] privateData) {
            super("MPA reject");
            this.privateData = privateData;
        }

        public byte[] privateData() {
            return privateData.clone();
        }
    }

    /** Why a reply is refused, with the Terminate siw would send (LLP layer, MPA error codes), or 0 for none. */
    public static final class ReplyRefused extends Exception {
        private static final long serialVersionUID = 1L;
        private final int llpErrorCode;

        public ReplyRefused(String message, int llpErrorCode) {
            super(message);
            this.llpErrorCode = llpErrorCode;
        }

        /** The RFC 6581/5044 LLP error code to send in a Terminate, or 0 to just close. */
        public int llpErrorCode() {
            return llpErrorCode;
        }
    }

    /** siw_proc_mpareply(). */
    public static Reply judgeReply(MpaFrame rep, MpaFrame request, int maxIrd) throws Rejected, ReplyRefused {
        if (rep.revision() > 2) {
            throw new ReplyRefused("MPA reply revision " + rep.revision(), 0);
        }
        if (!rep.reply()) {
            throw new ReplyRefused("MPA reply carries a request key", 0x04 /* LLP_ECODE_INVALID_REQ_RESP */);
        }
        if (rep.reject()) {
            throw new Rejected(applicationData(rep));
        }
        if (rep.markers() || (request.crc() && !rep.crc())) {
            throw new ReplyRefused("MPA reply asks for markers or drops the CRC we require", 0);
        }
        MpaV2IrdOrd ours;
        try {
            ours = MpaV2IrdOrd.decode(request.privateData());
        } catch (MpaException e) {
            throw new IllegalArgumentException("our own request lacks IRD/ORD words", e);
        }
        if (rep.revision() < 2 || !rep.enhanced()) {
            throw new ReplyRefused("MPA reply to an enhanced request must be revision 2 with H set", 0);
        }
        MpaV2IrdOrd words;
        try {
            words = MpaV2IrdOrd.decode(rep.privateData());
        } catch (MpaException e) {
            throw new ReplyRefused(e.getMessage(), 0x04);
        }
        // relaxed_ird_negotiation: insufficient only if the responder's ORD exceeds what we could ever grant
        if (ours.ird() < words.ord() && words.ord() > maxIrd) {
            throw new ReplyRefused("responder ORD " + words.ord() + " exceeds our IRD", 0x06 /* INSUFFICIENT_IRD */);
        }
        boolean sendRtr = false;
        if (ours.peerToPeer()) {
            if (!words.writeRtr()) {
                throw new ReplyRefused("responder chose no RTR mode we offered", 0x07 /* NO_MATCHING_RTR */);
            }
            sendRtr = true;
        }
        return new Reply(rep.crc(), Math.max(words.ord(), ours.ird()), words.ird(), sendRtr, applicationData(rep));
    }
}
