package io.nvmf4j.protocol.log;

import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.Wire;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The Asymmetric Namespace Access log page (0Ch; NVMe Base 2.0, 5.16.1.12, Figures 209-211). Header (16 bytes,
 * Linux {@code struct nvme_ana_rsp_hdr}): Change Count u64 at 0, Number of ANA Group Descriptors u16 at 8. Then one
 * descriptor per group ({@code struct nvme_ana_group_desc}, 32 bytes + 4 per NSID): ANAGRPID u32 at 0, Number of
 * NSID Values u32 at 4, Change Count u64 at 8, ANA State u8 at 16 (bits 3:0), reserved to 31, then the NSIDs. With
 * Return Groups Only (Get Log Page LSP bit 0, RGO) the descriptors carry no NSIDs and NNSIDS is 0.
 */
public record AnaLogPage(long changeCount, List<Group> groups) {

    public static final int HEADER_SIZE = 16;
    public static final int DESCRIPTOR_SIZE = 32;
    public static final int OFFSET_CHGCNT = 0;
    public static final int OFFSET_NGRPS = 8;
    public static final int DESC_OFFSET_GRPID = 0;
    public static final int DESC_OFFSET_NNSIDS = 4;
    public static final int DESC_OFFSET_CHGCNT = 8;
    public static final int DESC_OFFSET_STATE = 16;
    /** Get Log Page LSP bit 0 for this page: Return Groups Only. */
    public static final int LSP_RGO = 1;

    /** One ANA group descriptor. */
    public record Group(int grpid, long changeCount, AnaState state, List<Long> nsids) {
        public Group {
            nsids = List.copyOf(nsids);
        }

        int size() {
            return DESCRIPTOR_SIZE + 4 * nsids.size();
        }
    }

    public AnaLogPage {
        groups = List.copyOf(groups);
    }

    /** Bytes of the whole page. */
    public int size() {
        int n = HEADER_SIZE;
        for (Group g : groups) {
            n += g.size();
        }
        return n;
    }

    /** Writes the page, truncated to {@code data}'s size (a host may read it in parts; nvmet_execute_get_log_page_ana()). */
    public void encode(MemorySegment data) {
        byte[] page = new byte[size()];
        MemorySegment s = MemorySegment.ofArray(page);
        Wire.u64(s, OFFSET_CHGCNT, changeCount);
        Wire.u16(s, OFFSET_NGRPS, groups.size());
        long at = HEADER_SIZE;
        for (Group g : groups) {
            Wire.u32(s, at + DESC_OFFSET_GRPID, Integer.toUnsignedLong(g.grpid));
            Wire.u32(s, at + DESC_OFFSET_NNSIDS, g.nsids.size());
            Wire.u64(s, at + DESC_OFFSET_CHGCNT, g.changeCount);
            Wire.u8(s, at + DESC_OFFSET_STATE, g.state.code());
            at += DESCRIPTOR_SIZE;
            for (long nsid : g.nsids) {
                Wire.u32(s, at, nsid);
                at += 4;
            }
        }
        data.fill((byte) 0);
        MemorySegment.copy(s, 0, data, 0, Math.min(page.length, data.byteSize()));
    }

    public static AnaLogPage decode(MemorySegment data) {
        Wire.require(data, HEADER_SIZE, "ANA log page header");
        int ngrps = Wire.u16(data, OFFSET_NGRPS);
        List<Group> groups = new ArrayList<>();
        long at = HEADER_SIZE;
        for (int i = 0; i < ngrps; i++) {
            MemorySegment d = Wire.require(data.asSlice(Math.min(at, data.byteSize())), DESCRIPTOR_SIZE,
                    "ANA group descriptor " + i);
            long nnsids = Wire.u32(d, DESC_OFFSET_NNSIDS);
            int code = Wire.u8(d, DESC_OFFSET_STATE) & 0xF;
            AnaState state = AnaState.fromCode(code).orElse(null);
            if (state == null) {
                throw new MalformedStructureException("ANA group descriptor " + i + " has reserved state " + code);
            }
            at += DESCRIPTOR_SIZE;
            MemorySegment ids = Wire.require(data.asSlice(Math.min(at, data.byteSize())), nnsids * 4,
                    "NSIDs of ANA group descriptor " + i);
            List<Long> nsids = new ArrayList<>();
            for (int k = 0; k < nnsids; k++) {
                nsids.add(Wire.u32(ids, 4L * k));
            }
            at += nnsids * 4;
            groups.add(new Group((int) Wire.u32(d, DESC_OFFSET_GRPID), Wire.u64(d, DESC_OFFSET_CHGCNT), state,
                    nsids));
        }
        return new AnaLogPage(Wire.u64(data, OFFSET_CHGCNT), groups);
    }
}
