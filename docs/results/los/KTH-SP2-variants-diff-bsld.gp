set terminal svg size 800,560 dynamic font 'Helvetica,12'
set key below
set grid
set xlabel 'offered load'
set output 'KTH-SP2-variants-diff-bsld.svg'
set title 'KTH-SP2: EASY minus policy, bounded slowdown, 90% CI'
set ylabel 'mean per-job difference (positive: policy better)'
set xzeroaxis lt -1
set offsets 0.01, 0.01, 0, 0
plot 'KTH-SP2-variants.dat' using ($1+-0.0075):7:8:9 with yerrorlines title 'los', \
  'KTH-SP2-variants.dat' using ($1+-0.0015):15:16:17 with yerrorlines title 'los:traceback=selected-first', \
  'KTH-SP2-variants.dat' using ($1+0.0015):19:20:21 with yerrorlines title 'los-maxjobs', \
  'KTH-SP2-variants.dat' using ($1+0.0045):23:24:25 with yerrorlines title 'los-maxsd', \
  'KTH-SP2-variants.dat' using ($1+0.0075):27:28:29 with yerrorlines title 'los:head=once'
