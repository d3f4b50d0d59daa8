import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * SVG → PNG with resvg (a prebuilt binary from npm), using the DejaVu fonts from npm so the chart
 * has its text on machines without system fonts (slim containers). Loaded on first use, so other
 * `hookstream` commands never load the native module.
 */
export async function svgToPng(svg: string): Promise<Buffer> {
  const { Resvg } = await import('@resvg/resvg-js');
  const fontFiles = ['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf'].map((f) =>
    require.resolve(`dejavu-fonts-ttf/ttf/${f}`),
  );
  const resvg = new Resvg(svg, {
    font: { loadSystemFonts: false, fontFiles, defaultFontFamily: 'DejaVu Sans' },
    background: '#ffffff',
  });
  return resvg.render().asPng();
}

/** A PNG file starts with these 8 bytes. */
export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
