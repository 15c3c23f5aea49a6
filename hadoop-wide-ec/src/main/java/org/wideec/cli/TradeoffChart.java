package org.wideec.cli;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Rectangle;
import java.io.File;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jfree.chart.ChartUtils;
import org.wideec.analysis.LocalityTradeoff;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.annotations.XYTextAnnotation;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import org.jfree.svg.SVGGraphics2D;
import org.jfree.svg.SVGUtils;

/**
 * ECWide Figure 3 as a chart: cross-rack repair bandwidth against redundancy for TL, Azure-LRC and CL, one
 * curve per f, with the cheapest CL point of each f labelled. PNG or SVG by the file's extension.
 */
final class TradeoffChart {
  static final int WIDTH = 960;
  static final int HEIGHT = 600;

  private TradeoffChart() {}

  static void write(int k, double gamma, Map<Integer, List<LocalityTradeoff.Point>> pointsByF, File file)
      throws IOException {
    System.setProperty("java.awt.headless", "true");
    XYSeriesCollection data = new XYSeriesCollection();
    Map<String, Color> colours = new LinkedHashMap<>();
    Color[] palette = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0x9467bd), new Color(0xff7f0e)};
    int fi = 0;
    int[] labelled = {0};
    XYPlot plot = new XYPlot();
    for (Map.Entry<Integer, List<LocalityTradeoff.Point>> e : pointsByF.entrySet()) {
      Color c = palette[fi++ % palette.length];
      for (String scheme : new String[] {"TL", "LRC", "CL"}) {
        XYSeries s = new XYSeries(scheme + ", f=" + e.getKey(), true, true);
        for (LocalityTradeoff.Point p : e.getValue()) {
          if (p.scheme().equals(scheme)) {
            s.add(p.redundancy(), p.crossRack());
          }
        }
        if (s.getItemCount() > 0) {
          data.addSeries(s);
          colours.put(s.getKey().toString(), c);
        }
      }
      e.getValue().stream().filter(p -> p.scheme().equals("CL")).min((a, b) -> Double.compare(a.crossRack(), b.crossRack()))
          .ifPresent(best -> {
            // Left of the point (the cheapest CL sits at the cap, the right edge), stacked by f.
            XYTextAnnotation a = new XYTextAnnotation(best.label() + ", f=" + best.f(), best.redundancy(),
                best.crossRack() + 4.0 * pointsByF.size() - 4.0 * labelled[0]++);
            a.setTextAnchor(TextAnchor.BOTTOM_RIGHT);
            a.setFont(new Font("SansSerif", Font.PLAIN, 11));
            plot.addAnnotation(a);
          });
    }
    plot.setDataset(data);
    plot.setRenderer(renderer(data, colours));
    NumberAxis x = new NumberAxis("Redundancy (n/k)");
    x.setAutoRangeIncludesZero(false);
    NumberAxis y = new NumberAxis("Cross-rack repair bandwidth (chunks)");
    plot.setDomainAxis(x);
    plot.setRangeAxis(y);
    plot.setBackgroundPaint(Color.WHITE);
    plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    JFreeChart chart = new JFreeChart(String.format(Locale.ROOT,
        "Redundancy vs cross-rack repair bandwidth, k = %d, redundancy <= %.3f (ECWide Fig. 3)", k, gamma),
        new Font("SansSerif", Font.BOLD, 14), plot, true);
    chart.setBackgroundPaint(Color.WHITE);
    save(chart, file);
  }

  /** Each series in its f's colour: LRC dashed, TL as points only, CL solid. */
  private static XYLineAndShapeRenderer renderer(XYSeriesCollection data, Map<String, Color> colours) {
    XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
    for (int i = 0; i < data.getSeriesCount(); i++) {
      String key = data.getSeriesKey(i).toString();
      renderer.setSeriesPaint(i, colours.get(key));
      if (key.startsWith("LRC")) {
        renderer.setSeriesStroke(i, new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f));
      } else if (key.startsWith("TL")) {
        renderer.setSeriesLinesVisible(i, false);
      } else {
        renderer.setSeriesStroke(i, new BasicStroke(2f));
      }
    }
    return renderer;
  }

  /** As PNG or SVG, by the file's name. */
  private static void save(JFreeChart chart, File file) throws IOException {
    String name = file.getName().toLowerCase(Locale.ROOT);
    if (name.endsWith(".png")) {
      ChartUtils.saveChartAsPNG(file, chart, WIDTH, HEIGHT);
    } else if (name.endsWith(".svg")) {
      SVGGraphics2D g = new SVGGraphics2D(WIDTH, HEIGHT);
      chart.draw(g, new Rectangle(0, 0, WIDTH, HEIGHT));
      SVGUtils.writeToSVG(file, g.getSVGElement());
    } else {
      throw new IllegalArgumentException("plot file must end in .png or .svg: " + file);
    }
  }
}
