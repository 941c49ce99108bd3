package io.nvmf4j.protocol.auth;

import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.Wire;
import java.lang.foreign.MemorySegment;

/**
 * A message of the NVMe in-band authentication protocol, carried in the data of Authentication Send (host to
 * controller) and Authentication Receive (controller to host) with SECP E9h, SPSP0 01h, SPSP1 01h (NVMe Base 2.0,
 * 5.3 and 8.13.5; Linux {@code struct nvmf_auth_dhchap_*_data} in {@code include/linux/nvme.h}). Every message
 * starts with the same 6 bytes: AUTH_TYPE, AUTH_ID, two reserved bytes, T_ID (le16).
 *
 * <p>{@link #decode} reads a received buffer of {@code length} bytes (TL of the Send; the Receive's data as the
 * controller filled it) and checks every length field against it before reading: hostile input yields
 * {@link MalformedStructureException}, never an out-of-bounds read.
 */
public sealed interface AuthMessage permits AuthNegotiate, DhchapChallenge, DhchapReply, DhchapSuccess1,
        DhchapSuccess2, AuthFailure {

    /** AUTH_TYPE 00h: common messages (AUTH_Negotiate, AUTH_Failure1/2). */
    int TYPE_COMMON = 0x00;
    /** AUTH_TYPE 01h: DH-HMAC-CHAP messages. */
    int TYPE_DHCHAP = 0x01;

    int ID_NEGOTIATE = 0x00;
    int ID_CHALLENGE = 0x01;
    int ID_REPLY = 0x02;
    int ID_SUCCESS1 = 0x03;
    int ID_SUCCESS2 = 0x04;
    int ID_FAILURE2 = 0xF0;
    int ID_FAILURE1 = 0xF1;

    int OFFSET_AUTH_TYPE = 0;
    int OFFSET_AUTH_ID = 1;
    int OFFSET_T_ID = 4;
    /** The common header every message starts with: AUTH_TYPE, AUTH_ID, rsvd1[2], T_ID (le16). */
    int HEADER_SIZE = 6;

    /** Security protocol of Authentication Send/Receive: E9h, "NVMe-oF authentication" (SECP). */
    int SECP_AUTHENTICATION = 0xE9;
    /** SPSP0 and SPSP1 for the authentication protocol (Linux sends 01h 01h; nvmet requires them). */
    int SPSP0 = 0x01;
    int SPSP1 = 0x01;

    /** T_ID. */
    int tid();

    /** AUTH_TYPE of this message. */
    int authType();

    /** AUTH_ID of this message. */
    int authId();

    /** Bytes {@link #encode} writes. */
    int encodedSize();

    /** Writes the whole message into the first {@link #encodedSize()} bytes of {@code dst}. */
    void encode(MemorySegment dst);

    /** The encoded message as a byte array. */
    default byte[] toBytes() {
        byte[] b = new byte[encodedSize()];
        encode(MemorySegment.ofArray(b));
        return b;
    }

    /** Writes the common header (clearing the first {@code size} bytes first). */
    static MemorySegment header(MemorySegment dst, int size, String name, int type, int id, int tid) {
        MemorySegment s = Wire.requireDestination(dst, size, name);
        s.fill((byte) 0);
        Wire.u8(s, OFFSET_AUTH_TYPE, type);
        Wire.u8(s, OFFSET_AUTH_ID, id);
        Wire.u16(s, OFFSET_T_ID, tid);
        return s;
    }

    /** The AUTH_TYPE/AUTH_ID pair of a received buffer, for dispatching before a full decode. */
    static int peekType(MemorySegment data) {
        return Wire.u8(Wire.require(data, 2, "authentication message"), OFFSET_AUTH_TYPE);
    }

    static int peekId(MemorySegment data) {
        return Wire.u8(Wire.require(data, 2, "authentication message"), OFFSET_AUTH_ID);
    }

    /**
     * The T_ID of a received buffer without decoding the rest: a controller that refuses the exchange still answers
     * AUTH_Failure1 with the host's T_ID (Linux {@code nvmet_auth_failure1()} copies {@code req->sq->dhchap_tid}).
     * Fails when the buffer is shorter than the common header.
     */
    static int peekTid(MemorySegment data) {
        return Wire.u16(Wire.require(data, HEADER_SIZE, "authentication message"), OFFSET_T_ID);
    }

    /** Decodes whichever message {@code data} holds. */
    static AuthMessage decode(MemorySegment data) {
        int type = peekType(data);
        int id = peekId(data);
        if (type == TYPE_COMMON) {
            return switch (id) {
                case ID_NEGOTIATE -> AuthNegotiate.decode(data);
                case ID_FAILURE1, ID_FAILURE2 -> AuthFailure.decode(data);
                default -> throw new MalformedStructureException(
                        String.format("authentication message: AUTH_ID %02xh is not a common message", id),
                        OFFSET_AUTH_ID);
            };
        }
        if (type == TYPE_DHCHAP) {
            return switch (id) {
                case ID_CHALLENGE -> DhchapChallenge.decode(data);
                case ID_REPLY -> DhchapReply.decode(data);
                case ID_SUCCESS1 -> DhchapSuccess1.decode(data);
                case ID_SUCCESS2 -> DhchapSuccess2.decode(data);
                default -> throw new MalformedStructureException(
                        String.format("authentication message: AUTH_ID %02xh is not a DH-HMAC-CHAP message", id),
                        OFFSET_AUTH_ID);
            };
        }
        throw new MalformedStructureException(
                String.format("authentication message: AUTH_TYPE %02xh unknown", type), OFFSET_AUTH_TYPE);
    }

    /** Checks AUTH_TYPE and AUTH_ID before a specific decoder reads the rest. */
    static MemorySegment expect(MemorySegment data, int minSize, String name, int type, int id) {
        MemorySegment s = Wire.require(data, minSize, name);
        if (Wire.u8(s, OFFSET_AUTH_TYPE) != type || Wire.u8(s, OFFSET_AUTH_ID) != id) {
            throw new MalformedStructureException(String.format("%s: AUTH_TYPE/AUTH_ID %02xh/%02xh, expected %02xh/%02xh",
                    name, Wire.u8(s, OFFSET_AUTH_TYPE), Wire.u8(s, OFFSET_AUTH_ID), type, id), OFFSET_AUTH_ID);
        }
        return data;
    }

    static byte[] bytes(MemorySegment s, long offset, int length) {
        return s.asSlice(offset, length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
    }
}
