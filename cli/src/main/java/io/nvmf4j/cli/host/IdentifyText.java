package io.nvmf4j.cli.host;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.nvmf4j.protocol.admin.IdentifyController;
import io.nvmf4j.protocol.admin.IdentifyNamespace;
import io.nvmf4j.protocol.admin.LbaFormat;
import java.io.PrintWriter;

/**
 * Identify Controller and Identify Namespace in brief, in the layout of {@code nvme id-ctrl} / {@code nvme id-ns}
 * (nvme-cli {@code stdout_id_ctrl()} / {@code stdout_id_ns()}: "name : value", numbers in C's {@code %#x}), and
 * the same fields as JSON with nvme-cli's key names.
 */
public final class IdentifyText {

    private IdentifyText() {
    }

    public static void printController(PrintWriter out, IdentifyController c) {
        out.println("NVME Identify Controller:");
        field(out, 10, "vid", cHex(c.vid()));
        field(out, 10, "ssvid", cHex(c.ssvid()));
        field(out, 10, "sn", c.serialNumber().strip());
        field(out, 10, "mn", c.modelNumber().strip());
        field(out, 10, "fr", c.firmwareRevision().strip());
        field(out, 10, "mdts", Integer.toString(c.mdts()));
        field(out, 10, "cntlid", cHex(c.cntlid()));
        field(out, 10, "ver", cHex(Integer.toUnsignedLong(c.ver())));
        field(out, 10, "kas", Integer.toString(c.kas()));
        field(out, 10, "maxcmd", Integer.toString(c.maxcmd()));
        field(out, 10, "nn", Long.toString(c.nn()));
        field(out, 10, "oncs", cHex(c.oncs()));
        field(out, 10, "vwc", cHex(c.vwc()));
        field(out, 10, "sgls", cHex(Integer.toUnsignedLong(c.sgls())));
        field(out, 10, "subnqn", c.subnqn().strip());
        field(out, 10, "ioccsz", Long.toString(c.ioccsz()));
        field(out, 10, "iorcsz", Long.toString(c.iorcsz()));
        field(out, 10, "icdoff", Integer.toString(c.icdoff()));
        field(out, 10, "msdbd", Integer.toString(c.msdbd()));
        out.flush();
    }

    public static void printNamespace(PrintWriter out, long nsid, IdentifyNamespace ns) {
        out.printf("NVME Identify Namespace %d:%n", nsid);
        field(out, 8, "nsze", cHex(ns.nsze()));
        field(out, 8, "ncap", cHex(ns.ncap()));
        field(out, 8, "nuse", cHex(ns.nuse()));
        field(out, 8, "nsfeat", cHex(ns.nsfeat()));
        field(out, 8, "nlbaf", Integer.toString(ns.nlbaf()));
        field(out, 8, "flbas", cHex(ns.flbas()));
        int inUse = ns.formattedLbaIndex();
        for (int i = 0; i <= ns.nlbaf() && i < IdentifyNamespace.MAX_LBA_FORMATS; i++) {
            LbaFormat f = ns.lbaFormat(i);
            out.printf("lbaf %2d : ms:%-3d lbads:%-2d rp:%s%s%n", i, f.metadataSize(), f.lbaDataSizeShift(),
                    cHex(f.relativePerformance()), i == inUse ? " (in use)" : "");
        }
        out.flush();
    }

    public static ObjectNode controllerJson(IdentifyController c) {
        ObjectNode o = Json.object();
        o.put("vid", c.vid());
        o.put("ssvid", c.ssvid());
        o.put("sn", c.serialNumber().strip());
        o.put("mn", c.modelNumber().strip());
        o.put("fr", c.firmwareRevision().strip());
        o.put("mdts", c.mdts());
        o.put("cntlid", c.cntlid());
        o.put("ver", Integer.toUnsignedLong(c.ver()));
        o.put("kas", c.kas());
        o.put("maxcmd", c.maxcmd());
        o.put("nn", c.nn());
        o.put("oncs", c.oncs());
        o.put("vwc", c.vwc());
        o.put("sgls", Integer.toUnsignedLong(c.sgls()));
        o.put("subnqn", c.subnqn().strip());
        o.put("ioccsz", c.ioccsz());
        o.put("iorcsz", c.iorcsz());
        o.put("icdoff", c.icdoff());
        o.put("msdbd", c.msdbd());
        return o;
    }

    public static ObjectNode namespaceJson(long nsid, IdentifyNamespace ns) {
        ObjectNode o = Json.object();
        o.put("nsid", nsid);
        o.put("nsze", ns.nsze());
        o.put("ncap", ns.ncap());
        o.put("nuse", ns.nuse());
        o.put("nsfeat", ns.nsfeat());
        o.put("nlbaf", ns.nlbaf());
        o.put("flbas", ns.flbas());
        ArrayNode formats = o.putArray("lbafs");
        for (int i = 0; i <= ns.nlbaf() && i < IdentifyNamespace.MAX_LBA_FORMATS; i++) {
            LbaFormat f = ns.lbaFormat(i);
            ObjectNode lbaf = formats.addObject();
            lbaf.put("ms", f.metadataSize());
            lbaf.put("ds", f.lbaDataSizeShift());
            lbaf.put("rp", f.relativePerformance());
        }
        o.put("block_size", ns.blockSize());
        o.put("capacity_bytes", ns.blockSize() * ns.nsze());
        return o;
    }

    private static void field(PrintWriter out, int width, String name, String value) {
        out.printf("%-" + width + "s: %s%n", name, value);
    }

    /** C's {@code %#x}: "0" for zero, "0x1f" otherwise. */
    static String cHex(long v) {
        return v == 0 ? "0" : "0x" + Long.toHexString(v);
    }
}
