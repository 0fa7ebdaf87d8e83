set terminal svg size 800,560 dynamic font 'Helvetica,12'
set key below
set grid
set xlabel 'offered load'
set output 'KTH-SP2-lookahead-diff-bsld.svg'
set title 'KTH-SP2: EASY minus policy, bounded slowdown, 90% CI'
set ylabel 'mean per-job difference (positive: policy better)'
set xzeroaxis lt -1
set offsets 0.01, 0.01, 0, 0
plot 'KTH-SP2-lookahead.dat' using ($1+-0.0030):11:12:13 with yerrorlines title 'los:lookahead=25', \
  'KTH-SP2-lookahead.dat' using ($1+0.0000):15:16:17 with yerrorlines title 'los', \
  'KTH-SP2-lookahead.dat' using ($1+0.0030):19:20:21 with yerrorlines title 'los:lookahead=100', \
  'KTH-SP2-lookahead.dat' using ($1+0.0060):23:24:25 with yerrorlines title 'los:lookahead=250'
