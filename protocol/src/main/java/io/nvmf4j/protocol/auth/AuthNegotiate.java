package io.nvmf4j.protocol.auth;

import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.Wire;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * AUTH_Negotiate (NVMe Base 2.0, 5.3.4.x "AUTH_Negotiate message"; Linux {@code struct
 * nvmf_auth_dhchap_negotiate_data} followed by {@code struct nvmf_auth_dhchap_protocol_descriptor}s): the host
 * offers hash functions and DH groups. Layout:
 *
 * <pre>
 *  0 AUTH_TYPE 00h | 1 AUTH_ID 00h | 2..3 reserved | 4..5 T_ID | 6 SC_C | 7 NAPD
 *  8.. NAPD protocol descriptors of 64 bytes: 0 AUTHID (01h DH-HMAC-CHAP) | 1 reserved | 2 HALEN | 3 DHLEN
 *      | 4..33 hash ids (30) | 34..63 DH group ids (30)
 * </pre>
 *
 * Only the first descriptor is kept (nvmet and SPDK use only that one and require NAPD 1).
 *
 * @param tid     transaction id chosen by the host
 * @param scC     secure channel concatenation (0: none; nvmf4j supports only 0)
 * @param napd    number of protocol descriptors as sent
 * @param protocolId the first descriptor's AUTHID
 * @param hashIds offered hash ids, in the host's order of preference
 * @param dhGroupIds offered DH group ids, in the host's order
 */
public record AuthNegotiate(int tid, int scC, int napd, int protocolId, List<Integer> hashIds, List<Integer> dhGroupIds)
        implements AuthMessage {

    public static final int HEADER_SIZE = 8;
    public static final int DESCRIPTOR_SIZE = 64;
    /** One header and one descriptor: what Linux sends (72 bytes). */
    public static final int SIZE = HEADER_SIZE + DESCRIPTOR_SIZE;
    /** AUTHID of DH-HMAC-CHAP. */
    public static final int AUTHID_DHCHAP = 0x01;
    /** Room for each id list in a descriptor (Linux NVME_AUTH_DHCHAP_MAX_HASH_IDS / _DH_IDS). */
    public static final int MAX_IDS = 30;
    public static final int OFFSET_SC_C = 6;
    public static final int OFFSET_NAPD = 7;
    public static final int OFFSET_HALEN = HEADER_SIZE + 2;
    public static final int OFFSET_DHLEN = HEADER_SIZE + 3;
    public static final int OFFSET_HASH_IDS = HEADER_SIZE + 4;
    public static final int OFFSET_DH_IDS = OFFSET_HASH_IDS + MAX_IDS;

    public AuthNegotiate {
        Wire.checkUnsigned("T_ID", tid, 16);
        hashIds = List.copyOf(hashIds);
        dhGroupIds = List.copyOf(dhGroupIds);
        if (hashIds.size() > MAX_IDS || dhGroupIds.size() > MAX_IDS) {
            throw new IllegalArgumentException("at most " + MAX_IDS + " ids per list");
        }
    }

    /** What a host offers: one DH-HMAC-CHAP descriptor with the given hashes and groups. */
    public static AuthNegotiate of(int tid, List<DhchapHash> hashes, List<DhchapDhGroup> groups) {
        return new AuthNegotiate(tid, 0, 1, AUTHID_DHCHAP, hashes.stream().map(DhchapHash::id).toList(),
                groups.stream().map(DhchapDhGroup::id).toList());
    }

    @Override
    public int authType() {
        return TYPE_COMMON;
    }

    @Override
    public int authId() {
        return ID_NEGOTIATE;
    }

    @Override
    public int encodedSize() {
        return SIZE;
    }

    @Override
    public void encode(MemorySegment dst) {
        MemorySegment s = AuthMessage.header(dst, SIZE, "AUTH_Negotiate", TYPE_COMMON, ID_NEGOTIATE, tid);
        Wire.u8(s, OFFSET_SC_C, scC);
        Wire.u8(s, OFFSET_NAPD, napd);
        Wire.u8(s, HEADER_SIZE, protocolId);
        Wire.u8(s, OFFSET_HALEN, hashIds.size());
        Wire.u8(s, OFFSET_DHLEN, dhGroupIds.size());
        for (int i = 0; i < hashIds.size(); i++) {
            Wire.u8(s, OFFSET_HASH_IDS + i, hashIds.get(i));
        }
        for (int i = 0; i < dhGroupIds.size(); i++) {
            Wire.u8(s, OFFSET_DH_IDS + i, dhGroupIds.get(i));
        }
    }

    /**
     * Reads the header and the first descriptor. HALEN or DHLEN above 30 is malformed (nvmet:
     * INCORRECT_PAYLOAD); NAPD and AUTHID are returned for the caller to judge.
     */
    public static AuthNegotiate decode(MemorySegment data) {
        MemorySegment s = AuthMessage.expect(data, SIZE, "AUTH_Negotiate", TYPE_COMMON, ID_NEGOTIATE);
        int halen = Wire.u8(s, OFFSET_HALEN);
        int dhlen = Wire.u8(s, OFFSET_DHLEN);
        if (halen > MAX_IDS) {
            throw new MalformedStructureException("AUTH_Negotiate: HALEN " + halen + " above " + MAX_IDS,
                    OFFSET_HALEN);
        }
        if (dhlen > MAX_IDS) {
            throw new MalformedStructureException("AUTH_Negotiate: DHLEN " + dhlen + " above " + MAX_IDS,
                    OFFSET_DHLEN);
        }
        List<Integer> hashes = new ArrayList<>(halen);
        for (int i = 0; i < halen; i++) {
            hashes.add(Byte.toUnsignedInt(s.get(ValueLayout.JAVA_BYTE, OFFSET_HASH_IDS + i)));
        }
        List<Integer> groups = new ArrayList<>(dhlen);
        for (int i = 0; i < dhlen; i++) {
            groups.add(Byte.toUnsignedInt(s.get(ValueLayout.JAVA_BYTE, OFFSET_DH_IDS + i)));
        }
        return new AuthNegotiate(Wire.u16(s, OFFSET_T_ID), Wire.u8(s, OFFSET_SC_C), Wire.u8(s, OFFSET_NAPD),
                Wire.u8(s, HEADER_SIZE), hashes, groups);
    }
}
