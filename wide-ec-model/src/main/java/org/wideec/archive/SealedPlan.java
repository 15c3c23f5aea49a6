package org.wideec.archive;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.wideec.archive.encode.RapidRaidChain;
import org.wideec.archive.encode.RapidRaidPipeline;
import org.wideec.archive.encode.RapidRaidPlan;
import org.wideec.topology.Site;

/**
 * The sealed (non-systematic) archival of one file as data, for {@code wide-ec archive --dry-run}: the stripes the
 * {@link SealedPlanner} records, and for the RapidRAID encoder each stripe's {@link RapidRaidPlan} (the chain, its
 * replica copies and its streams) exactly as the executor builds it. Codeword i of a pipelined stripe is written on
 * chain node i; the classic encoder (this process reads every piece and writes every codeword) writes it on the node
 * the sealed planner dealt, and crosses racks as far as the archiver's host is from them, which is not modelled.
 *
 * @param pipelines one per stripe, in stripe order, for the RapidRAID encoder; empty for the classic one
 */
public record SealedPlan(String path, String codeSpec, String encoder, long length, StripeManifest manifest,
    List<RapidRaidPlan> pipelines) implements StripePlan {
  public SealedPlan {
    pipelines = List.copyOf(pipelines);
    if (!pipelines.isEmpty() && pipelines.size() != manifest.stripes().size()) {
      throw new IllegalArgumentException(path + ": " + pipelines.size() + " pipelines for " + manifest.stripes().size()
          + " stripes");
    }
  }

  @Override
  public StripeLayout layout() {
    return StripeLayout.NON_SYSTEMATIC;
  }

  public boolean pipelined() {
    return !pipelines.isEmpty();
  }

  /** Where codeword {@code unit} of stripe {@code index} (position in the manifest) is written. */
  public Site codewordSite(int index, int unit) {
    if (pipelined()) {
      return pipelines.get(index).site(unit);
    }
    StripeMember m = manifest.stripes().get(index).member(unit);
    return new Site(m.plannedNode(), m.plannedRack());
  }

  @Override
  public long blocksMoved() {
    return pipelines.stream().mapToInt(p -> p.chain().moves().size()).sum();
  }

  @Override
  public long bytesMoved() {
    return pipelines.stream().mapToLong(RapidRaidPlan::moveBytes).sum();
  }

  @Override
  public long crossRackBytesMoved() {
    return pipelines.stream().mapToLong(RapidRaidPlan::crossRackMoveBytes).sum();
  }

  /** The pipelines' streams across racks; null for the classic encoder (it depends on where the archiver runs). */
  public Long crossRackBytesEncoding() {
    return pipelined() ? pipelines.stream().mapToLong(RapidRaidPlan::crossRackBytes).sum() : null;
  }

  /** The same; a sealed plan is made for one encoder (the RapidRAID one plans its pipelines). */
  @Override
  public Long crossRackBytesEncoding(String encoder) {
    if (!encoder.equals(this.encoder)) {
      throw new IllegalArgumentException("the plan of " + path + " is made for the " + this.encoder + " encoder, not "
          + encoder);
    }
    return crossRackBytesEncoding();
  }

  /** Every piece, read once by the classic encoder, twice by the pipeline (each piece's two positions). */
  public long bytesRead() {
    long pieces = manifest.stripes().stream().flatMap(s -> s.sources().stream()).mapToLong(SourcePiece::length).sum();
    return pipelined() ? 2 * pieces : pieces;
  }

  public long codewordBytes() {
    return manifest.stripes().stream().mapToLong(s -> (long) s.members().size() * s.unitLength()).sum();
  }

  /** Stored bytes over the file's: a sealed file keeps only its codewords. */
  public double redundancyAfter() {
    return length == 0 ? Double.NaN : (double) codewordBytes() / length;
  }

  @Override
  public String describe() {
    StringBuilder b = new StringBuilder();
    List<ArchivedStripe> stripes = manifest.stripes();
    int blocks = stripes.stream().mapToInt(s -> s.sources().size()).sum();
    b.append(String.format(Locale.ROOT, "seal %s (%,d bytes, %d blocks) with %s, %s encoder: %d stripe%s%n", path,
        length, blocks, codeSpec, encoder, stripes.size(), stripes.size() == 1 ? "" : "s"));
    for (int x = 0; x < stripes.size(); x++) {
      ArchivedStripe s = stripes.get(x);
      b.append(String.format(Locale.ROOT, "stripe %d: %d piece%s of up to %,d bytes%s%n", s.stripeId(),
          s.sources().size(), s.sources().size() == 1 ? "" : "s", s.unitLength(), s.sources().size() < s.code().k()
              ? ", " + (s.code().k() - s.sources().size()) + " virtual zero pieces (never stored)" : ""));
      for (int t = 0; t < s.sources().size(); t++) {
        SourcePiece p = s.sources().get(t);
        b.append(String.format(Locale.ROOT, "  piece %d: block %d, %,d bytes at offset %,d%n", t, p.blockId(),
            p.length(), p.offset()));
      }
      if (pipelined()) {
        RapidRaidPlan p = pipelines.get(x);
        for (RapidRaidPipeline.Position pos : p.pipeline().positions()) {
          b.append(String.format(Locale.ROOT, "  position %d on %s: pieces %s, stores codeword %d%n", pos.index(),
              p.site(pos.index()), Arrays.toString(pos.pieces()), pos.index()));
        }
        for (RapidRaidChain.Move m : p.chain().moves()) {
          b.append(String.format(Locale.ROOT, "  copy piece %d (%,d bytes) from %s onto chain node %s%s%n", m.piece(),
              p.pieceLengths()[m.piece()], m.from(), m.to(), m.crossRack() ? ", across racks" : ""));
        }
        b.append(String.format(Locale.ROOT, "  %d cop%s (%,d bytes, %,d across racks); encoding %,d bytes across"
                + " racks, %d chain hop%s across racks; %s%n", p.chain().moves().size(),
            p.chain().moves().size() == 1 ? "y" : "ies", p.moveBytes(), p.crossRackMoveBytes(), p.crossRackBytes(),
            p.chain().crossRackHops(), p.chain().crossRackHops() == 1 ? "" : "s", p.chain().rackLossTolerant()
                ? "any one rack may be lost" : "losing some one rack leaves too few codewords to decode"));
      } else {
        for (int i = 0; i < s.members().size(); i++) {
          b.append(String.format(Locale.ROOT, "  codeword %d on %s%n", i, codewordSite(x, i)));
        }
      }
    }
    b.append(String.format(Locale.ROOT, "copies: %d blocks, %,d bytes (%,d across racks); encoding across racks: %s;"
            + " reads %,d bytes, writes %,d codeword bytes; redundancy after %.4f%n", blocksMoved(), bytesMoved(),
        crossRackBytesMoved(), pipelined() ? String.format(Locale.ROOT, "%,d bytes", crossRackBytesEncoding())
            : "every byte passes through this process (classic)", bytesRead(), codewordBytes(), redundancyAfter()));
    return b.toString();
  }

  @Override
  public Map<String, Object> toJson() {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("path", path);
    j.put("code", codeSpec);
    j.put("encoder", encoder);
    j.put("seals", true); // the plan would seal the file (not: it is sealed)
    j.put("length", length);
    List<Object> out = new ArrayList<>();
    List<ArchivedStripe> stripes = manifest.stripes();
    for (int x = 0; x < stripes.size(); x++) {
      out.add(stripeJson(x, stripes.get(x)));
    }
    j.put("stripes", out);
    j.put("blocksMoved", blocksMoved());
    j.put("bytesMoved", bytesMoved());
    j.put("crossRackBytesMoved", crossRackBytesMoved());
    j.put("crossRackBytesEncoding", crossRackBytesEncoding());
    j.put("bytesRead", bytesRead());
    j.put("codewordBytes", codewordBytes());
    j.put("redundancyAfter", redundancyAfter());
    j.put("changed", false);
    return j;
  }

  /** Stripe x: its source pieces, its pipeline (when pipelined) and where each codeword is written. */
  private Map<String, Object> stripeJson(int x, ArchivedStripe s) {
    Map<String, Object> sj = new LinkedHashMap<>();
    sj.put("stripe", s.stripeId());
    sj.put("unitBytes", s.unitLength());
    List<Object> pieces = new ArrayList<>();
    for (int t = 0; t < s.sources().size(); t++) {
      SourcePiece p = s.sources().get(t);
      pieces.add(Map.of("piece", t, "block", p.blockId(), "offset", p.offset(), "length", p.length()));
    }
    sj.put("pieces", pieces);
    sj.put("virtualPieces", s.code().k() - s.sources().size());
    List<Object> words = new ArrayList<>();
    for (int i = 0; i < s.members().size(); i++) {
      Site at = codewordSite(x, i);
      words.add(Map.of("codeword", i, "node", at.node(), "rack", at.rack()));
    }
    if (pipelined()) {
      putPipeline(sj, pipelines.get(x));
    }
    sj.put("codewords", words);
    return sj;
  }

  /** A pipelined stripe's chain positions, its piece copies (moves) and their traffic. */
  private static void putPipeline(Map<String, Object> sj, RapidRaidPlan p) {
    List<Object> chain = new ArrayList<>();
    for (RapidRaidPipeline.Position pos : p.pipeline().positions()) {
      chain.add(Map.of("position", pos.index(), "node", p.site(pos.index()).node(), "rack",
          p.site(pos.index()).rack(), "pieces", Arrays.stream(pos.pieces()).boxed().toList()));
    }
    List<Object> moves = new ArrayList<>();
    for (RapidRaidChain.Move m : p.chain().moves()) {
      moves.add(moveJson(p, m));
    }
    sj.put("chain", chain);
    sj.put("moves", moves);
    sj.put("bytesMoved", p.moveBytes());
    sj.put("crossRackBytesMoved", p.crossRackMoveBytes());
    sj.put("crossRackBytesEncoding", p.crossRackBytes());
    sj.put("crossRackHops", p.chain().crossRackHops());
    sj.put("rackLossTolerant", p.chain().rackLossTolerant());
  }

  /** One copy of a source piece ahead of the pipeline: from where to where, how many bytes, across racks or not. */
  private static Map<String, Object> moveJson(RapidRaidPlan p, RapidRaidChain.Move m) {
    Map<String, Object> mj = new LinkedHashMap<>();
    mj.put("piece", m.piece());
    mj.put("from", m.from().node());
    mj.put("fromRack", m.from().rack());
    mj.put("to", m.to().node());
    mj.put("toRack", m.to().rack());
    mj.put("bytes", p.pieceLengths()[m.piece()]);
    mj.put("crossRack", m.crossRack());
    return mj;
  }
}
